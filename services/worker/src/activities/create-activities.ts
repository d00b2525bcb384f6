import { Context } from '@temporalio/activity';
import { customerApprovalView, expireCustomerApproval, remindCustomerApproval } from '@shop/domain/accounts';
import { expireUnpaidOrder, orderLifecycleView, runRefundRequest, SWEEP_PASSES, type SweepPassDeps } from '@shop/domain/flows';
import { remindOrderApproval } from '@shop/domain/orders';
import { workflowSettings } from '@shop/domain/settings';
import { captureAtFulfilment, GATEWAY_TRANSACTION } from '@shop/domain/tenders';
import { recordWorkflowFault, type WorkflowRun } from '@shop/domain/workflow-runs';
import type { ShopActivities } from './shop-activities.ts';

/** Well within the refund activity's heartbeat timeout (15 s). */
const HEARTBEAT_EVERY_MS = 3_000;

/** The workflow run that called the running activity. */
function callingRun(): WorkflowRun {
  const { workflowType, workflowExecution } = Context.current().info;
  return {
    workflow: workflowType ?? 'unknown',
    workflowId: workflowExecution?.workflowId ?? 'unknown',
    runId: workflowExecution?.runId ?? 'unknown',
  };
}

/** Heartbeats while `work` runs: a long activity whose worker dies is retried after the heartbeat timeout, not its whole timeout. */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

/** Thin calls into @shop/domain, each in one transaction of its own. */
export function createActivities(sweep: SweepPassDeps): ShopActivities {
  const { transaction, deps, metrics } = sweep;
  return {
    workflowSettings: () => transaction((tx) => workflowSettings(tx)),
    expireStaleReservations: ({ asOf, limit }) =>
      SWEEP_PASSES.ExpireStaleReservationsWorkflow(sweep, { asOf: new Date(asOf), limit, run: callingRun() }),
    deleteExpiredCarts: ({ asOf, limit }) =>
      SWEEP_PASSES.CleanupExpiredCartsWorkflow(sweep, { asOf: new Date(asOf), limit, run: callingRun() }),
    voidExpiringCardAuths: ({ asOf, limit }) =>
      SWEEP_PASSES.VoidExpiringCardAuthsWorkflow(sweep, { asOf: new Date(asOf), limit, run: callingRun() }),
    voidIdleCartTenders: ({ asOf, limit }) =>
      SWEEP_PASSES.GcExpiredCartTendersWorkflow(sweep, { asOf: new Date(asOf), limit, run: callingRun() }),
    expireOverdraftDrafts: ({ asOf, limit }) =>
      SWEEP_PASSES.GcExpiredOverdraftDraftsWorkflow(sweep, { asOf: new Date(asOf), limit, run: callingRun() }),
    expireReturnDrafts: ({ asOf, limit }) =>
      SWEEP_PASSES.GcExpiredRmaDraftsWorkflow(sweep, { asOf: new Date(asOf), limit, run: callingRun() }),
    restartStrandedMoney: ({ asOf, limit }) =>
      SWEEP_PASSES.ReconcileStrandedMoneyWorkflow(sweep, { asOf: new Date(asOf), limit, run: callingRun() }),
    orderLifecycleView: (orderId) => transaction((tx) => orderLifecycleView(tx, BigInt(orderId))),
    expireUnpaidOrder: ({ orderId, asOf }) =>
      transaction(async (tx) => {
        await expireUnpaidOrder(tx, deps, BigInt(orderId), new Date(asOf));
        return orderLifecycleView(tx, BigInt(orderId));
      }),
    remindOrderApproval: (orderId) => transaction((tx) => remindOrderApproval(tx, deps, BigInt(orderId))),
    captureOrderTenders: (orderId) => transaction((tx) => captureAtFulfilment(tx, deps, BigInt(orderId)), GATEWAY_TRANSACTION),
    customerApprovalView: (customerId) => transaction((tx) => customerApprovalView(tx, BigInt(customerId))),
    remindCustomerApproval: ({ customerId, expiresAt }) =>
      transaction((tx) => remindCustomerApproval(tx, deps, BigInt(customerId), new Date(expiresAt))),
    expireCustomerApproval: (customerId) => transaction((tx) => expireCustomerApproval(tx, deps, BigInt(customerId))),
    async runRefundRequest(refundRequestId) {
      const run = callingRun();
      return heartbeating(() => runRefundRequest(sweep, { requestId: BigInt(refundRequestId), run }));
    },
    async recordWorkflowFault(fault) {
      const run = callingRun();
      const recorded = await transaction((tx) => recordWorkflowFault(tx, run, fault));
      if (recorded) metrics.faults.inc({ workflow: run.workflow, reason: fault.reason });
      return recorded;
    },
  };
}
