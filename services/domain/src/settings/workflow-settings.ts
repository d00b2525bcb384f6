import type { Tx } from '../kernel/index.ts';

/** The waits of the workflows' durable timers and sweeps, in hours or minutes as named (fractions allowed: 0.5 hours is half an hour). */
export interface WorkflowSettings {
  /** A paid order not fulfilled this long after payment is recorded as a workflow fault. */
  readonly fulfilmentWindowHours: number;
  /** An order waiting for approval this long gets a reminder (its expiry is the stock hold's, approvalWindowHours). */
  readonly orderApprovalReminderHours: number;
  /** A business account waiting for approval this long gets a reminder. */
  readonly customerApprovalReminderHours: number;
  /** A business account still waiting this long is rejected. */
  readonly customerApprovalExpiryHours: number;
  /** A card authorization lapsing within this many hours is voided by the daily sweep (VoidExpiringCardAuthsWorkflow). */
  readonly cardAuthorizationVoidMarginHours: number;
  /** A return (RMA) draft not submitted this long after it was created expires (GcExpiredRmaDraftsWorkflow). */
  readonly rmaDraftLifetimeHours: number;
  /** RefundExecutionWorkflow looks a refund the gateway left pending up again this often until it settles. */
  readonly pendingRefundPollHours: number;
  /** A return credited in advance whose goods did not arrive this long after its submission expires, its credit clawed back. */
  readonly returnReceiptWindowHours: number;
  /** A clawback's overdraft draft (the part of the credit the customer already spent) expires this long after the clawback. */
  readonly refundClawbackOverdraftHours: number;
  /** Minutes a card authorized for a cart waits for its order; then GcExpiredCartTendersWorkflow voids it (set on the tender at authorization). */
  readonly cartTenderIdleMinutes: number;
}

export const DEFAULT_WORKFLOW_SETTINGS: WorkflowSettings = {
  fulfilmentWindowHours: 72,
  orderApprovalReminderHours: 24,
  customerApprovalReminderHours: 72,
  customerApprovalExpiryHours: 168,
  // Two days: the daily sweep sees each authorization twice before it lapses, so one missed run voids it still.
  cardAuthorizationVoidMarginHours: 48,
  rmaDraftLifetimeHours: 72,
  // Pending refunds settle in days (bank transfers): four looks a day are plenty.
  pendingRefundPollHours: 6,
  // Thirty days for the goods to come back, as common return policies give.
  returnReceiptWindowHours: 720,
  refundClawbackOverdraftHours: 720,
  // As the payment window's default: a shopper whose checkout failed after the authorization retries within it.
  cartTenderIdleMinutes: 30,
};

/** The settings key holding overrides of the defaults above (a partial object). */
export const WORKFLOW_SETTINGS_KEY = 'workflows';

export async function workflowSettings(tx: Tx): Promise<WorkflowSettings> {
  const row = await tx.setting.findUnique({ where: { key: WORKFLOW_SETTINGS_KEY } });
  return { ...DEFAULT_WORKFLOW_SETTINGS, ...((row?.value ?? {}) as Partial<WorkflowSettings>) };
}
