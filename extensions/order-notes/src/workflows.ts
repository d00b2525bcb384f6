// Bundled by the worker with the core's workflows: deterministic, every effect an activity.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { OrderNotesActivities } from './activities.ts';
import type { OrderNotesDigest } from './digests.ts';

const { writeOrderNotesDigest } = proxyActivities<OrderNotesActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Run by the order-notes.digest schedule: records how many notes were written since the previous digest. */
export async function OrderNotesDigestWorkflow(): Promise<OrderNotesDigest> {
  return writeOrderNotesDigest({ workflowId: workflowInfo().workflowId, asOf: new Date().toISOString() });
}
