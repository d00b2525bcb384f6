import { setHandler } from '@temporalio/workflow';
import { activities } from './activities.ts';
import { awaitDecision } from './approval-timers.ts';
import { Nudges, orderStatusChanged, stateQuery } from './signals.ts';
import { hoursAfter } from './time.ts';

/**
 * A child of OrderLifecycleWorkflow (order-approval-<orderId>) while a business order waits for
 * approval. Staff decide with approveOrder / cancelOrder; the lifecycle passes the change on. It
 * reminds after orderApprovalReminderHours and, when the order's stock hold runs out
 * (approvalWindowHours after placement), cancels the order.
 */
export async function OrderApprovalWorkflow({ orderId }: { orderId: string }): Promise<{ status: string | null }> {
  const nudges = new Nudges();
  let status: string | null = null;
  let deadline: string | null = null;
  setHandler(orderStatusChanged, () => nudges.nudge());
  setHandler(stateQuery, () => ({ status, deadline }));

  const order = await activities.orderLifecycleView(orderId);
  status = order?.status ?? null;
  if (order?.status !== 'AWAITING_APPROVAL' || order.holdExpiresAt === null) return { status };
  const settings = await activities.workflowSettings();
  const asOf = () => new Date().toISOString();
  await awaitDecision({
    nudges,
    remindAt: hoursAfter(order.placedAt, settings.orderApprovalReminderHours),
    expiresAt: order.holdExpiresAt,
    async stillPending() {
      status = (await activities.orderLifecycleView(orderId))?.status ?? null;
      return status === 'AWAITING_APPROVAL';
    },
    remind: () => activities.remindOrderApproval(orderId),
    expire: () => activities.expireUnpaidOrder({ orderId, asOf: asOf() }),
    showDeadline: (next) => void (deadline = next),
  });
  return { status };
}
