import { Context } from '@temporalio/activity';
import type { RunTransaction, WorkflowMetrics } from '@shop/platform';
import {
  customerApprovalView,
  deleteExpiredCarts,
  expireCustomerApproval,
  expireStaleReservations,
  expireUnpaidOrder,
  orderLifecycleView,
  recordWorkflowFault,
  remindCustomerApproval,
  remindOrderApproval,
  workflowSettings,
  type DomainDeps,
  type WorkflowRun,
} from '@shop/domain';
import type { ShopActivities } from './shop-activities.ts';

export interface ActivityDeps {
  /** An outbox transaction: the operation's events commit with it. */
  readonly transaction: RunTransaction;
  readonly deps: DomainDeps;
  readonly metrics: WorkflowMetrics;
}

/** The workflow run that called the running activity. */
function callingRun(): WorkflowRun {
  const { workflowType, workflowExecution } = Context.current().info;
  return { workflow: workflowType ?? 'unknown', workflowId: workflowExecution?.workflowId ?? 'unknown', runId: workflowExecution?.runId ?? 'unknown' };
}

/** Thin calls into @shop/domain, each in one transaction of its own. */
export function createActivities({ transaction, deps, metrics }: ActivityDeps): ShopActivities {
  return {
    workflowSettings: () => transaction((tx) => workflowSettings(tx)),
    async expireStaleReservations({ asOf, limit }) {
      const run = callingRun();
      const sweep = await transaction((tx) => expireStaleReservations(tx, deps, { asOf: new Date(asOf), limit, run }));
      for (const fault of sweep.faults) metrics.faults.inc({ workflow: run.workflow, reason: fault.reason });
      metrics.swept.inc({ sweep: run.workflow, what: 'reservations' }, sweep.reservations);
      metrics.swept.inc({ sweep: run.workflow, what: 'cancelled_orders' }, sweep.cancelledOrderIds.length);
      return { processed: sweep.orders, more: sweep.more, reservations: sweep.reservations, cancelledOrders: sweep.cancelledOrderIds.length };
    },
    async deleteExpiredCarts({ asOf, limit }) {
      const { deleted, more } = await transaction((tx) => deleteExpiredCarts(tx, { asOf: new Date(asOf), limit }));
      metrics.swept.inc({ sweep: callingRun().workflow, what: 'carts' }, deleted);
      return { processed: deleted, more };
    },
    orderLifecycleView: (orderId) => transaction((tx) => orderLifecycleView(tx, BigInt(orderId))),
    expireUnpaidOrder: ({ orderId, asOf }) => transaction((tx) => expireUnpaidOrder(tx, deps, BigInt(orderId), new Date(asOf))),
    remindOrderApproval: (orderId) => transaction((tx) => remindOrderApproval(tx, deps, BigInt(orderId))),
    customerApprovalView: (customerId) => transaction((tx) => customerApprovalView(tx, BigInt(customerId))),
    remindCustomerApproval: ({ customerId, expiresAt }) => transaction((tx) => remindCustomerApproval(tx, deps, BigInt(customerId), new Date(expiresAt))),
    expireCustomerApproval: (customerId) => transaction((tx) => expireCustomerApproval(tx, deps, BigInt(customerId))),
    async recordWorkflowFault(fault) {
      const run = callingRun();
      const recorded = await transaction((tx) => recordWorkflowFault(tx, run, fault));
      if (recorded) metrics.faults.inc({ workflow: run.workflow, reason: fault.reason });
      return recorded;
    },
  };
}
