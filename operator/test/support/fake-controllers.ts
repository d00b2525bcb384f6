// Without a controller manager nothing updates a Job's or a Deployment's status: the tests play the
// Job and Deployment controllers through the status subresource, as envtest tests do.
import type { KubeRequest } from '../../../test/infra/kube-client.ts';

interface Stored {
  metadata: { generation?: number; resourceVersion?: string };
  spec?: { replicas?: number };
  status?: Record<string, unknown>;
}

/** GET, change the status, PUT it back; again on a conflict (the operator may apply the object meanwhile). */
async function updateStatus(kube: KubeRequest, path: string, status: (object: Stored) => Record<string, unknown>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const current = await kube<Stored>('GET', path);
    if (current.status !== 200) throw new Error(`GET ${path}: HTTP ${current.status}`);
    const updated = await kube('PUT', `${path}/status`, { ...current.body, status: status(current.body) });
    if (updated.status === 200) return;
    if (updated.status !== 409 || attempt === 5) throw new Error(`PUT ${path}/status: HTTP ${updated.status}: ${JSON.stringify(updated.body)}`);
  }
}

const jobPath = (namespace: string, name: string) => `/apis/batch/v1/namespaces/${namespace}/jobs/${name}`;
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** The status the Job controller writes when the Job's one pod has succeeded. */
export function completedJobStatus(): Record<string, unknown> {
  return {
    startTime: now(),
    completionTime: now(),
    succeeded: 1,
    conditions: [
      { type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: now() },
      { type: 'Complete', status: 'True', lastTransitionTime: now() },
    ],
  };
}

export function completeJob(kube: KubeRequest, namespace: string, name: string): Promise<void> {
  return updateStatus(kube, jobPath(namespace, name), completedJobStatus);
}

export function failJob(kube: KubeRequest, namespace: string, name: string, reason: string, message: string): Promise<void> {
  return updateStatus(kube, jobPath(namespace, name), () => ({
    startTime: now(),
    failed: 1,
    conditions: [
      { type: 'FailureTarget', status: 'True', reason, message, lastTransitionTime: now() },
      { type: 'Failed', status: 'True', reason, message, lastTransitionTime: now() },
    ],
  }));
}

/** The status the Deployment controller writes once every replica of the current generation is updated and available. */
export function availableDeploymentStatus(deployment: Stored): Record<string, unknown> {
  const replicas = deployment.spec?.replicas ?? 1;
  return {
    observedGeneration: deployment.metadata.generation,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.', lastUpdateTime: now(), lastTransitionTime: now() }],
  };
}

/** All replicas of the Deployment's current generation updated and available. */
export function markDeploymentAvailable(kube: KubeRequest, namespace: string, name: string): Promise<void> {
  return updateStatus(kube, `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`, availableDeploymentStatus);
}
