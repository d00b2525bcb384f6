import { condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { type RefundRequestProgress } from '@shop/domain/flows';
import { activities, refundActivities } from './activities.ts';
import { Nudges, refundRequested, stateQuery } from './signals.ts';

type RefundExecution = (input: { refundRequestId: string }) => Promise<{ status: string }>;

/**
 * Runs one refund request's refunds (refund-<refundRequestId>), started from the outbox when the
 * request is made and signalled when staff retry a failed refund or send it to store credit. Each run
 * of the activity sends every REQUESTED refund under its key (a retry after a crash refunds once) and
 * looks the PENDING ones up; while some are pending it looks again every pendingRefundPollHours. It
 * ends when nothing is left to run: every refund settled (SUCCEEDED), or one failed for good
 * (NEEDS_ATTENTION: staff act, and their action starts a new run under the same id).
 */
export async function RefundExecutionWorkflow({ refundRequestId }: { refundRequestId: string }): Promise<{ status: string }> {
  const nudges = new Nudges();
  let progress: RefundRequestProgress | null = null;
  let deadline: string | null = null;
  setHandler(refundRequested, () => nudges.nudge());
  setHandler(stateQuery, () => ({ status: progress?.status ?? null, deadline }));

  let mark = nudges.mark();
  progress = await refundActivities.runRefundRequest(refundRequestId);
  for (;;) {
    if (progress.pending > 0) {
      if (workflowInfo().continueAsNewSuggested) return continueAsNew<RefundExecution>({ refundRequestId });
      const { pendingRefundPollHours } = await activities.workflowSettings();
      const waitMs = pendingRefundPollHours * 60 * 60 * 1000;
      deadline = new Date(Date.now() + waitMs).toISOString();
      await condition(nudges.since(mark), waitMs);
      deadline = null;
    } else if (!nudges.since(mark)()) {
      return { status: progress.status };
    }
    mark = nudges.mark();
    progress = await refundActivities.runRefundRequest(refundRequestId);
  }
}
