import { condition, getExternalWorkflowHandle, ParentClosePolicy, patched, setHandler, startChild } from '@temporalio/workflow';
import { CAPTURE_REFUSED, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import type { OrderLifecycleView } from '@shop/domain/flows';
import { activities, moneyActivities } from './activities.ts';
import { Nudges, orderStatusChanged, stateQuery } from './signals.ts';
import { hoursAfter, msUntil } from './time.ts';

const FINAL = new Set(['COMPLETED', 'CANCELLED']);
export const FULFILMENT_OVERDUE = 'fulfilment_overdue';
export const CAPTURED_DIFFERS_FROM_TOTAL = 'captured_differs_from_total';
export const CAPTURE_WITHOUT_AUTHORIZATION = 'capture_without_authorization';
/** The patch that captures an order first seen COMPLETED; runs recorded before it replay without. */
const CAPTURE_COMPLETED_ORDERS = 'capture-completed-orders';

/**
 * Follows one order (order-lifecycle-<orderId>) from placement to COMPLETED or CANCELLED. Every
 * status change of the order signals it (through the outbox); it re-reads the order each time and
 * keeps the timers only a workflow can: the payment deadline (the stock hold's expiry: the order is
 * cancelled and its stock released), the approval (a child OrderApprovalWorkflow), and the
 * fulfilment window (a paid order not fulfilled in time is recorded as a workflow fault). A fulfilled
 * (or completed) order's card tenders are captured (a capture the gateway refuses, one that differs from the order's
 * total, or a card payment with no authorization left to capture, is a fault).
 */
export async function OrderLifecycleWorkflow({ orderId }: { orderId: string }): Promise<{ status: string | null }> {
  const nudges = new Nudges();
  let order: OrderLifecycleView | null = null;
  let deadline: string | null = null;
  setHandler(orderStatusChanged, () => nudges.nudge());
  setHandler(stateQuery, () => ({ status: order?.status ?? null, deadline }));

  let approval: string | undefined;
  let fulfilmentFaulted = false;
  let captured = false;
  let mark = nudges.mark();
  order = await activities.orderLifecycleView(orderId);
  while (order !== null && !FINAL.has(order.status)) {
    const changed = nudges.since(mark);
    let paymentDeadlinePassed = false;
    deadline = null;
    if (order.status === 'AWAITING_APPROVAL') {
      approval ??= (await startApproval(orderId)).workflowId;
      await condition(changed);
    } else if (order.status === 'PENDING_PAYMENT') {
      // A hold already gone (or none: nothing can be paid for any more) needs no timer.
      deadline = order.holdExpiresAt;
      const waitMs = deadline === null ? 0 : msUntil(deadline);
      paymentDeadlinePassed = waitMs === 0 || !(await condition(changed, waitMs));
    } else if (order.status === 'PLACED' && !fulfilmentFaulted && order.paidAt !== null) {
      const { fulfilmentWindowHours } = await activities.workflowSettings();
      deadline = hoursAfter(order.paidAt, fulfilmentWindowHours);
      if (!(await condition(changed, msUntil(deadline)))) {
        await activities.recordWorkflowFault({
          entityType: 'order',
          entityId: orderId,
          reason: FULFILMENT_OVERDUE,
          details: { orderNumber: order.orderNumber, paidAt: order.paidAt, fulfilmentWindowHours },
        });
        fulfilmentFaulted = true;
      }
    } else if (order.status === 'FULFILLED' && !captured) {
      await capture(orderId, order.orderNumber);
      captured = true;
    } else {
      await condition(changed);
    }
    mark = nudges.mark();
    // Expiring answers the order as it is afterwards: one activity instead of two.
    order = paymentDeadlinePassed
      ? await activities.expireUnpaidOrder({ orderId, asOf: new Date().toISOString() })
      : await activities.orderLifecycleView(orderId);
    if (approval !== undefined && order?.status !== 'AWAITING_APPROVAL') {
      await tellApproval(approval, order?.status ?? 'CANCELLED');
      approval = undefined;
    }
  }
  // Fulfilled and completed before a pass saw it FULFILLED: its goods are gone, so it is captured all the same.
  if (order?.status === 'COMPLETED' && !captured && patched(CAPTURE_COMPLETED_ORDERS)) await capture(orderId, order.orderNumber);
  deadline = null;
  return { status: order?.status ?? null };
}

/** The activity retries until the gateway answers; its keys make every retry capture once. */
async function capture(orderId: string, orderNumber: string): Promise<void> {
  const { tenders, captured, orderTotal, refused, withoutAuthorization } = await moneyActivities.captureOrderTenders(orderId);
  if (refused !== null) {
    await activities.recordWorkflowFault({
      entityType: 'order',
      entityId: orderId,
      reason: CAPTURE_REFUSED,
      details: { orderNumber, refused },
    });
  } else if (withoutAuthorization === true) {
    // Histories recorded before this field existed answer undefined here and take the branches they took then.
    await activities.recordWorkflowFault({
      entityType: 'order',
      entityId: orderId,
      reason: CAPTURE_WITHOUT_AUTHORIZATION,
      details: { orderNumber, captured, orderTotal },
    });
  } else if (tenders > 0 && captured !== orderTotal) {
    await activities.recordWorkflowFault({
      entityType: 'order',
      entityId: orderId,
      reason: CAPTURED_DIFFERS_FROM_TOTAL,
      details: { orderNumber, captured, orderTotal },
    });
  }
}

function startApproval(orderId: string) {
  return startChild(WORKFLOW_TYPES.orderApproval, {
    workflowId: workflowIds.orderApproval(orderId),
    args: [{ orderId }],
    // The approval ends by itself once it sees the decision; it must not die with a lifecycle run.
    parentClosePolicy: ParentClosePolicy.ABANDON,
  });
}

/** The approval re-reads the order on a nudge; once it has ended (its own expiry) there is nobody to tell. */
async function tellApproval(workflowId: string, to: string): Promise<void> {
  try {
    await getExternalWorkflowHandle(workflowId).signal(orderStatusChanged, { to });
  } catch {
    // Signalling a finished workflow fails: it needs no news.
  }
}
