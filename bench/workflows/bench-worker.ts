// The worker as services/worker/src/run-process.ts builds it, in the bench process, plus the
// baseline's workflow (TrivialWorkflow) and its no-op activity.
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { TASK_QUEUE } from '@shop/domain/workflows';
import type { ShopActivities } from '../../services/worker/src/activities/shop-activities.ts';

export interface BenchWorker {
  /** Stops polling, lets running activities end, and closes its connection. */
  stop(): Promise<void>;
}

let runtimeInstalled = false;

export async function startBenchWorker(temporalAddress: string, activities: ShopActivities): Promise<BenchWorker> {
  // One runtime per process: `npm run bench` runs several benches with a worker in one process.
  if (!runtimeInstalled) Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  runtimeInstalled = true;
  const connection = await NativeConnection.connect({ address: temporalAddress });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue: TASK_QUEUE,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: fileURLToPath(new URL('./index.ts', import.meta.url)),
        logger: new DefaultLogger('WARN'),
      }),
      activities: { ...activities, noop: async () => undefined },
    });
    const running = worker.run();
    return {
      async stop() {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running.catch(() => undefined);
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
