import { apply } from '../../kube/apply.ts';
import type { ReconcileStep } from '../pass.ts';
import { rollOut } from './roll-out.ts';

/** Why a Shop without a workflow engine has no worker pods (the renderer scales the worker to 0). */
export const WORKFLOWS_OFF =
  'workflows are off: spec.secrets.workflowHost is not set, so the worker runs no pods and the api runs the periodic sweeps itself';

/**
 * The worker (with its PodDisruptionBudget and its autoscaler if any) and the consumer, only once the api of the same spec is available: on an upgrade the old
 * ones keep running their old template (this step is not reached) until the new migrations and the new
 * api are ready.
 */
export const workerAndConsumer: ReconcileStep = {
  name: 'worker and consumer',
  conditions: ['WorkerAvailable', 'ConsumerAvailable'],
  async run(pass) {
    const worker = await rollOut(
      pass,
      'worker',
      pass.manifests.worker.deployment,
      'WorkerAvailable',
      pass.shop.spec.secrets.workflowHost === undefined ? WORKFLOWS_OFF : undefined,
    );
    await apply(pass.clients.objects, pass.manifests.worker.disruptionBudget);
    if (pass.manifests.worker.autoscaler) await apply(pass.clients.objects, pass.manifests.worker.autoscaler);
    const consumer = await rollOut(pass, 'consumer', pass.manifests.consumer.deployment, 'ConsumerAvailable');
    if (worker.done && consumer.done) return undefined;
    const failures = [worker, consumer].flatMap((rollout) => rollout.failure ?? []);
    const [first] = failures;
    if (first) return { phase: 'Degraded', reason: first.reason, message: failures.map((failure) => failure.message).join('; ') };
    const message = [worker, consumer].flatMap((rollout) => (rollout.done ? [] : [rollout.message])).join('; ');
    return { phase: 'Deploying', reason: worker.done ? 'ConsumerRollingOut' : 'WorkerRollingOut', message };
  },
};
