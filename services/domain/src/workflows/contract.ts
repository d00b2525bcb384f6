/**
 * The names the api, the worker and the workflows agree on: workflow types, their ids (derived from
 * the entity, so a redelivered start finds the running workflow instead of starting a second one),
 * signals, queries and the periodic sweeps. Plain data: workflow code imports it, so it must stay
 * free of I/O and of other modules.
 */

/** The one task queue every worker polls: several replicas share it and Temporal spreads the work. */
export const TASK_QUEUE = 'shop';

export const WORKFLOW_TYPES = {
  orderLifecycle: 'OrderLifecycleWorkflow',
  orderApproval: 'OrderApprovalWorkflow',
  customerApproval: 'CustomerApprovalWorkflow',
  expireStaleReservations: 'ExpireStaleReservationsWorkflow',
  cleanupExpiredCarts: 'CleanupExpiredCartsWorkflow',
  voidExpiringCardAuths: 'VoidExpiringCardAuthsWorkflow',
  gcExpiredOverdraftDrafts: 'GcExpiredOverdraftDraftsWorkflow',
  gcExpiredRmaDrafts: 'GcExpiredRmaDraftsWorkflow',
  refundExecution: 'RefundExecutionWorkflow',
  gcExpiredCartTenders: 'GcExpiredCartTendersWorkflow',
  reconcileStrandedMoney: 'ReconcileStrandedMoneyWorkflow',
} as const;

export type WorkflowType = (typeof WORKFLOW_TYPES)[keyof typeof WORKFLOW_TYPES];

export const workflowIds = {
  orderLifecycle: (orderId: string): string => `order-lifecycle-${orderId}`,
  orderApproval: (orderId: string): string => `order-approval-${orderId}`,
  customerApproval: (customerId: string): string => `customer-approval-${customerId}`,
  refundExecution: (refundRequestId: string): string => `refund-${refundRequestId}`,
};

export const SIGNALS = {
  /** To OrderLifecycleWorkflow and OrderApprovalWorkflow: the order changed; the workflow re-reads it. */
  orderStatusChanged: 'orderStatusChanged',
  /** To CustomerApprovalWorkflow: staff decided; the workflow re-reads the account. */
  customerApprovalChanged: 'customerApprovalChanged',
  /** To RefundExecutionWorkflow: the request has refunds to run (new, retried, or sent to store credit); the workflow runs them. */
  refundRequested: 'refundRequested',
} as const;

export const QUERIES = {
  /** The workflow's view of its entity: status, the deadline it waits for, what it did. */
  state: 'state',
} as const;

/** The fault OrderLifecycleWorkflow records when the gateway refuses a capture for good: nothing retries that capture. */
export const CAPTURE_REFUSED = 'capture_refused';

export type OverlapPolicy = 'skip';

/** The workflows a schedule runs: bounded passes over what fell due. */
export type SweepWorkflowType = (typeof WORKFLOW_TYPES)[
  | 'expireStaleReservations'
  | 'cleanupExpiredCarts'
  | 'voidExpiringCardAuths'
  | 'gcExpiredOverdraftDrafts'
  | 'gcExpiredRmaDrafts'
  | 'gcExpiredCartTenders'
  | 'reconcileStrandedMoney'];

/** A sweep run on a fixed interval: by a Temporal Schedule in the worker, or in-process without a workflow engine. */
export interface PeriodicWorkflow {
  /** The Temporal Schedule id, and the workflow id prefix of its runs. */
  readonly scheduleId: string;
  readonly workflowType: SweepWorkflowType;
  readonly everyMs: number;
  /** Rows one pass handles (a run makes passes until one finds nothing more). */
  readonly batch: number;
  /** A run still going when the next is due: the next is skipped, never run beside it. */
  readonly overlap: OverlapPolicy;
  /** Runs missed while the engine was down are made up only within this window (one at most, as they overlap-skip). */
  readonly catchupWindowMs: number;
  readonly description: string;
}

const MINUTE_MS = 60_000;
/** Rows a pass handles, in paced transactions (sweep-pace.ts). */
const SWEEP_BATCH = 500;
/** Tenders a pass voids: each waits for the gateway, so a pass stays well within its activity's timeout. */
const VOID_BATCH = 100;

export const PERIODIC_WORKFLOWS: readonly PeriodicWorkflow[] = [
  {
    scheduleId: 'expire-stale-reservations',
    workflowType: WORKFLOW_TYPES.expireStaleReservations,
    everyMs: MINUTE_MS,
    batch: SWEEP_BATCH,
    overlap: 'skip',
    catchupWindowMs: MINUTE_MS,
    description: 'releases HELD stock reservations past their expiry and cancels the unpaid orders they held stock for',
  },
  {
    scheduleId: 'cleanup-expired-carts',
    workflowType: WORKFLOW_TYPES.cleanupExpiredCarts,
    everyMs: 60 * MINUTE_MS,
    batch: SWEEP_BATCH,
    overlap: 'skip',
    catchupWindowMs: 60 * MINUTE_MS,
    description:
      'deletes ACTIVE carts left alone past their expiry (cartLifetimeDays after their last change), except those with a live tender',
  },
  {
    scheduleId: 'void-expiring-card-auths',
    workflowType: WORKFLOW_TYPES.voidExpiringCardAuths,
    everyMs: 24 * 60 * MINUTE_MS,
    batch: VOID_BATCH,
    overlap: 'skip',
    catchupWindowMs: 24 * 60 * MINUTE_MS,
    description: 'voids card authorizations lapsing within cardAuthorizationVoidMarginHours and cancels the unfulfilled orders they paid',
  },
  {
    scheduleId: 'gc-expired-overdraft-drafts',
    workflowType: WORKFLOW_TYPES.gcExpiredOverdraftDrafts,
    everyMs: 60 * MINUTE_MS,
    batch: SWEEP_BATCH,
    overlap: 'skip',
    catchupWindowMs: 60 * MINUTE_MS,
    description: 'expires store credit overdraft drafts past their expiry, voiding the debit each let below zero',
  },
  {
    scheduleId: 'gc-expired-rma-drafts',
    workflowType: WORKFLOW_TYPES.gcExpiredRmaDrafts,
    everyMs: 24 * 60 * MINUTE_MS,
    batch: SWEEP_BATCH,
    overlap: 'skip',
    catchupWindowMs: 24 * 60 * MINUTE_MS,
    description:
      'expires return (RMA) drafts not submitted within rmaDraftLifetimeHours, freeing the units they held, and returns credited in advance whose goods missed returnReceiptWindowHours, clawing the credit back',
  },
  {
    scheduleId: 'gc-expired-cart-tenders',
    workflowType: WORKFLOW_TYPES.gcExpiredCartTenders,
    everyMs: 15 * MINUTE_MS,
    batch: VOID_BATCH,
    overlap: 'skip',
    catchupWindowMs: 15 * MINUTE_MS,
    description: 'voids the card authorizations of carts that no order took within cartTenderIdleMinutes',
  },
  {
    scheduleId: 'reconcile-stranded-money',
    workflowType: WORKFLOW_TYPES.reconcileStrandedMoney,
    everyMs: 15 * MINUTE_MS,
    batch: SWEEP_BATCH,
    overlap: 'skip',
    catchupWindowMs: 15 * MINUTE_MS,
    description:
      'starts again the workflows of refund requests left REQUESTED and of fulfilled orders whose card is still only authorized, for longer than STRANDED_AFTER_MINUTES (their event parked while the engine was down)',
  },
];

/** What one pass of a sweep did; the workflow loops while `more` is true. */
export interface SweepBatch {
  readonly processed: number;
  readonly more: boolean;
}
