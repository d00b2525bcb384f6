import { setHandler } from '@temporalio/workflow';
import { activities } from './activities.ts';
import { awaitDecision } from './approval-timers.ts';
import { customerApprovalChanged, Nudges, stateQuery } from './signals.ts';
import { hoursAfter } from './time.ts';

/**
 * Started when a business account registers (customer-approval-<customerId>). Staff decide with
 * approveBusinessCustomer / rejectBusinessCustomer, which signal it; it adds what only a durable
 * timer can: a reminder after customerApprovalReminderHours and, after customerApprovalExpiryHours,
 * the rejection of an account nobody decided on.
 */
export async function CustomerApprovalWorkflow({ customerId }: { customerId: string }): Promise<{ approvalStatus: string | null }> {
  const nudges = new Nudges();
  let approvalStatus: string | null = null;
  let deadline: string | null = null;
  setHandler(customerApprovalChanged, () => nudges.nudge());
  setHandler(stateQuery, () => ({ status: approvalStatus, deadline }));

  const requested = await activities.customerApprovalView(customerId);
  if (requested === null) return { approvalStatus };
  const settings = await activities.workflowSettings();
  const expiresAt = hoursAfter(requested.requestedAt, settings.customerApprovalExpiryHours);
  await awaitDecision({
    nudges,
    remindAt: hoursAfter(requested.requestedAt, settings.customerApprovalReminderHours),
    expiresAt,
    async stillPending() {
      approvalStatus = (await activities.customerApprovalView(customerId))?.approvalStatus ?? null;
      return approvalStatus === 'PENDING';
    },
    remind: () => activities.remindCustomerApproval({ customerId, expiresAt }),
    expire: () => activities.expireCustomerApproval(customerId),
    showDeadline: (next) => void (deadline = next),
  });
  return { approvalStatus };
}
