// The bench worker's workflows: the platform's, and the baseline they are compared with.
import { proxyActivities } from '@temporalio/workflow';

export * from '../../services/worker/src/workflows/index.ts';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

/** The baseline: a workflow that runs one activity that does nothing. */
export async function TrivialWorkflow(): Promise<void> {
  await noop();
}
