import { domainDeps, workflowMetrics, type Emit, type Platform, type RunTransaction, type WorkflowMetrics } from '@shop/platform';
import type { DomainDeps } from '../kernel/index.ts';
import { deleteExpiredCarts } from '../carts/index.ts';
import { expireStaleReservations } from './order-expiry.ts';
import { expireOverdraftDrafts } from '../store-credit/index.ts';
import { expireReturnDrafts } from '../returns/index.ts';
import { voidExpiringAuthorizations } from './expiring-authorizations.ts';
import { voidIdleCartTenders } from '../tenders/index.ts';
import { restartStrandedCaptures, restartStrandedRefundRequests } from './stranded-money.ts';
import { WORKFLOW_TYPES, type SweepBatch, type SweepWorkflowType } from '../workflows/index.ts';
import { pacedPass, sweepPace, type SweepPace, type WorkflowRun } from '../workflow-runs/index.ts';
import { expireUnreceivedReturns } from './return-closing.ts';

/**
 * The periodic sweeps' passes (carts, orders, returns, store credit, tenders, refunds). Guarantees: each
 * pass works in paced chunks of short transactions, and a pass stopped anywhere can run again.
 */

export interface SweepPassDeps {
  /** An outbox transaction: the pass's events commit with it. */
  readonly transaction: RunTransaction;
  readonly deps: DomainDeps;
  readonly metrics: WorkflowMetrics;
  readonly pace: SweepPace;
}

/**
 * What a process's passes (and its workflow activities) run with, once its outbox runs: the api's in-process engine, the worker, the
 * bench. `deps`: the process's own when it has some already (the api's, so one payment gateway serves requests and passes).
 */
export function sweepPassDeps(
  platform: Pick<Platform, 'config' | 'metrics' | 'database' | 'masterKeys'>,
  outbox: { emit: Emit; transaction: RunTransaction },
  deps: DomainDeps = domainDeps(platform, outbox.emit),
): SweepPassDeps {
  return {
    transaction: outbox.transaction,
    deps,
    metrics: workflowMetrics(platform.metrics),
    pace: sweepPace(platform.config.sweepRowsPerSecond),
  };
}

export interface SweepPassInput {
  readonly asOf: Date;
  readonly limit: number;
  /** The workflow run doing the pass (or the api's in-process pass, without a workflow engine). */
  readonly run: WorkflowRun;
}

export type SweepPass = (deps: SweepPassDeps, input: SweepPassInput) => Promise<SweepBatch>;

async function restartRefundsChunk(
  { transaction, deps, metrics }: SweepPassDeps,
  input: SweepPassInput,
  limit: number,
): Promise<SweepBatch> {
  const { restarted, more } = await transaction((tx) => restartStrandedRefundRequests(tx, deps, { asOf: input.asOf, limit }));
  metrics.swept.inc({ sweep: input.run.workflow, what: 'restarted_refund_requests' }, restarted);
  return { processed: restarted, more };
}

/** The refund requests' part of ReconcileStrandedMoneyWorkflow's pass: all the api runs without an engine, where nothing captures. */
export const restartStrandedRefundsPass: SweepPass = (sweep, input) =>
  pacedPass(sweep.pace, input.limit, (limit) => restartRefundsChunk(sweep, input, limit));

/**
 * One bounded pass of each periodic sweep, in paced transactions, counted in the workflow metrics:
 * the worker's activities and the api's in-process sweeps run these same passes.
 */
export const SWEEP_PASSES: Readonly<Record<SweepWorkflowType, SweepPass>> = {
  [WORKFLOW_TYPES.expireStaleReservations]: ({ transaction, deps, metrics, pace }, input) =>
    pacedPass(pace, input.limit, async (limit) => {
      const sweep = await transaction((tx) => expireStaleReservations(tx, deps, { ...input, limit }));
      for (const fault of sweep.faults) metrics.faults.inc({ workflow: input.run.workflow, reason: fault.reason });
      metrics.swept.inc({ sweep: input.run.workflow, what: 'reservations' }, sweep.reservations);
      metrics.swept.inc({ sweep: input.run.workflow, what: 'cancelled_orders' }, sweep.cancelledOrderIds.length);
      return { processed: sweep.orders, more: sweep.more };
    }),
  [WORKFLOW_TYPES.cleanupExpiredCarts]: ({ transaction, metrics, pace }, input) =>
    pacedPass(pace, input.limit, async (limit) => {
      const { deleted, more } = await transaction((tx) => deleteExpiredCarts(tx, { ...input, limit }));
      metrics.swept.inc({ sweep: input.run.workflow, what: 'carts' }, deleted);
      return { processed: deleted, more };
    }),
  // One tender per transaction, as each waits for the gateway: chunks pace the gateway calls as rows.
  [WORKFLOW_TYPES.voidExpiringCardAuths]: ({ transaction, deps, metrics, pace }, input) =>
    pacedPass(pace, input.limit, async (limit) => {
      const { voided, refused, more } = await voidExpiringAuthorizations(transaction, deps, { ...input, limit });
      metrics.swept.inc({ sweep: input.run.workflow, what: 'voided_authorizations' }, voided);
      if (refused > 0) metrics.faults.inc({ workflow: input.run.workflow, reason: 'void_refused' }, refused);
      return { processed: voided, more };
    }),
  [WORKFLOW_TYPES.gcExpiredOverdraftDrafts]: ({ transaction, deps, metrics, pace }, input) =>
    pacedPass(pace, input.limit, async (limit) => {
      const { expired, more } = await transaction((tx) => expireOverdraftDrafts(tx, deps, { asOf: input.asOf, limit }));
      metrics.swept.inc({ sweep: input.run.workflow, what: 'overdraft_drafts' }, expired);
      return { processed: expired, more };
    }),
  // Drafts first, then returns credited in advance whose goods are overdue, in what the chunk has left.
  [WORKFLOW_TYPES.gcExpiredRmaDrafts]: ({ transaction, deps, metrics, pace }, input) =>
    pacedPass(pace, input.limit, async (limit) => {
      const drafts = await transaction((tx) => expireReturnDrafts(tx, deps, { asOf: input.asOf, limit }));
      metrics.swept.inc({ sweep: input.run.workflow, what: 'rma_drafts' }, drafts.expired);
      if (drafts.more) return { processed: drafts.expired, more: true };
      const unreceived = await transaction((tx) => expireUnreceivedReturns(tx, deps, { asOf: input.asOf, limit: limit - drafts.expired }));
      metrics.swept.inc({ sweep: input.run.workflow, what: 'unreceived_returns' }, unreceived.expired);
      return { processed: drafts.expired + unreceived.expired, more: unreceived.more };
    }),
  // As the void of expiring authorizations: one tender per transaction, each waiting for the gateway.
  [WORKFLOW_TYPES.gcExpiredCartTenders]: ({ transaction, deps, metrics, pace }, input) =>
    pacedPass(pace, input.limit, async (limit) => {
      const { voided, refused, more } = await voidIdleCartTenders(transaction, deps, { ...input, limit });
      metrics.swept.inc({ sweep: input.run.workflow, what: 'voided_cart_tenders' }, voided);
      if (refused > 0) metrics.faults.inc({ workflow: input.run.workflow, reason: 'void_refused' }, refused);
      return { processed: voided, more };
    }),
  // Refund requests first, then the captures, in what the chunk has left.
  [WORKFLOW_TYPES.reconcileStrandedMoney]: (sweep, input) =>
    pacedPass(sweep.pace, input.limit, async (limit) => {
      const refunds = await restartRefundsChunk(sweep, input, limit);
      if (refunds.more) return refunds;
      const captures = await sweep.transaction((tx) =>
        restartStrandedCaptures(tx, sweep.deps, { asOf: input.asOf, limit: limit - refunds.processed }),
      );
      sweep.metrics.swept.inc({ sweep: input.run.workflow, what: 'restarted_captures' }, captures.restarted);
      return { processed: refunds.processed + captures.restarted, more: captures.more };
    }),
};
