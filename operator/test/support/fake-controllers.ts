// Without a controller manager nothing updates a Job's or a Deployment's status: the tests play the
// Job and Deployment controllers through the status subresource, as envtest tests do, and the kubelet
// where a Job's pod ends.
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
const deploymentPath = (namespace: string, name: string) => `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`;
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

interface StoredJob {
  metadata: { uid: string };
  spec: { template: PodTemplate };
}

/**
 * The Job's pod as the Job controller creates it (labelled with the Job's uid and name) and as the
 * kubelet leaves it once its one container ended: `exitCode`, and what the container wrote to its
 * termination message file, if anything.
 */
async function createEndedPod(kube: KubeRequest, namespace: string, name: string, ended: { exitCode: number; terminationMessage?: string }): Promise<void> {
  const terminated = {
    exitCode: ended.exitCode,
    reason: ended.exitCode === 0 ? 'Completed' : 'Error',
    startedAt: now(),
    finishedAt: now(),
    ...(ended.terminationMessage === undefined ? {} : { message: ended.terminationMessage }),
  };
  await createJobPod(kube, namespace, name, (containers) => ({
    phase: ended.exitCode === 0 ? 'Succeeded' : 'Failed',
    containerStatuses: containers.map((container) => containerStatus(container, { state: { terminated } })),
  }));
}

type Container = { name: string; image: string };
/** The pod's status, from its containers. */
export type PodStatus = (containers: readonly Container[]) => Record<string, unknown>;

/** A container's status as the kubelet writes it, not ready and never restarted unless `state` says otherwise. */
export function containerStatus(container: Container, state: Record<string, unknown>): Record<string, unknown> {
  return { name: container.name, image: container.image, imageID: '', ready: false, restartCount: 0, ...state };
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: { containers: Container[] };
}

/** Creates a pod of `template` as its controller would, then writes the status the scheduler and the kubelet would. */
async function createPod(kube: KubeRequest, namespace: string, owner: string, template: PodTemplate, labels: Record<string, string>, status: PodStatus): Promise<string> {
  const body = { metadata: { generateName: `${owner}-`, labels: { ...template.metadata?.labels, ...labels } }, spec: template.spec };
  const created = await kube<{ metadata: { name: string } }>('POST', `/api/v1/namespaces/${namespace}/pods`, body);
  if (created.status !== 201) throw new Error(`POST a pod of ${owner}: HTTP ${created.status}: ${JSON.stringify(created.body)}`);
  const name = created.body.metadata.name;
  await setPodStatus(kube, namespace, name, status(template.spec.containers));
  return name;
}

/** The Job's pod (labelled with the Job's uid and name, as the Job controller does), in the state `status` gives it. Resolves with its name. */
export async function createJobPod(kube: KubeRequest, namespace: string, name: string, status: PodStatus): Promise<string> {
  const job = await kube<StoredJob>('GET', jobPath(namespace, name));
  if (job.status !== 200) throw new Error(`GET Job ${name}: HTTP ${job.status}`);
  const labels = { 'batch.kubernetes.io/controller-uid': job.body.metadata.uid, 'batch.kubernetes.io/job-name': name, 'job-name': name };
  return createPod(kube, namespace, name, job.body.spec.template, labels, status);
}

/** A pod of the Deployment's current template, as its ReplicaSet creates it, in the state `status` gives it. Resolves with its name. */
export async function createDeploymentPod(kube: KubeRequest, namespace: string, name: string, status: PodStatus): Promise<string> {
  const deployment = await kube<{ spec: { template: PodTemplate } }>('GET', deploymentPath(namespace, name));
  if (deployment.status !== 200) throw new Error(`GET Deployment ${name}: HTTP ${deployment.status}`);
  return createPod(kube, namespace, name, deployment.body.spec.template, {}, status);
}

/** What the scheduler or the kubelet writes next about the pod. */
export function setPodStatus(kube: KubeRequest, namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
  return updateStatus(kube, `/api/v1/namespaces/${namespace}/pods/${name}`, () => status);
}

/** The Deployment controller's status of the Deployment: its conditions replaced by `conditions`, the replicas as they were. */
export function setDeploymentConditions(kube: KubeRequest, namespace: string, name: string, conditions: ReadonlyArray<Record<string, string>>): Promise<void> {
  return updateStatus(kube, deploymentPath(namespace, name), (deployment) => ({
    ...deployment.status,
    observedGeneration: deployment.metadata.generation,
    conditions: conditions.map((condition) => ({ lastUpdateTime: now(), lastTransitionTime: now(), ...condition })),
  }));
}

/** The Job has failed with `reason` (e.g. DeadlineExceeded, BackoffLimitExceeded), as the Job controller says it. */
export function markJobFailed(kube: KubeRequest, namespace: string, name: string, reason: string, message: string): Promise<void> {
  return updateStatus(kube, jobPath(namespace, name), () => ({
    startTime: now(),
    failed: 1,
    conditions: [
      { type: 'FailureTarget', status: 'True', reason, message, lastTransitionTime: now() },
      { type: 'Failed', status: 'True', reason, message, lastTransitionTime: now() },
    ],
  }));
}

/** The Job's pod ended with exit 0 (with `terminationMessage` in its termination message file), and the Job is Complete. */
export async function completeJob(kube: KubeRequest, namespace: string, name: string, terminationMessage?: string): Promise<void> {
  await createEndedPod(kube, namespace, name, { exitCode: 0, terminationMessage });
  await updateStatus(kube, jobPath(namespace, name), completedJobStatus);
}

/** The Job's pod ended with exit 1 (with `terminationMessage`), and the Job has Failed. */
export async function failJob(kube: KubeRequest, namespace: string, name: string, reason: string, message: string, terminationMessage?: string): Promise<void> {
  await createEndedPod(kube, namespace, name, { exitCode: 1, terminationMessage });
  await markJobFailed(kube, namespace, name, reason, message);
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
  return updateStatus(kube, deploymentPath(namespace, name), availableDeploymentStatus);
}

interface StoredDeployment {
  spec: { selector: { matchLabels: Record<string, string> }; template: { spec: Record<string, unknown> } };
}

const HOLD_FINALIZER = 'test.shop.dev/hold';

/**
 * A pod of the Deployment as its ReplicaSet made it from an earlier template (with `annotations`),
 * now Terminating: deleted, and kept with its deletionTimestamp as a kubelet keeps a pod until its
 * containers stopped (here by a finalizer). `release` lets it go.
 */
export async function createTerminatingPod(
  kube: KubeRequest,
  namespace: string,
  deploymentName: string,
  annotations: Record<string, string>,
): Promise<{ name: string; release(): Promise<void> }> {
  const deployment = await kube<StoredDeployment>('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${deploymentName}`);
  if (deployment.status !== 200) throw new Error(`GET Deployment ${deploymentName}: HTTP ${deployment.status}`);
  const { selector, template } = deployment.body.spec;
  const metadata = { generateName: `${deploymentName}-`, labels: selector.matchLabels, annotations, finalizers: [HOLD_FINALIZER] };
  const created = await kube<{ metadata: { name: string } }>('POST', `/api/v1/namespaces/${namespace}/pods`, { metadata, spec: template.spec });
  if (created.status !== 201) throw new Error(`POST a pod of Deployment ${deploymentName}: HTTP ${created.status}: ${JSON.stringify(created.body)}`);
  const path = `/api/v1/namespaces/${namespace}/pods/${created.body.metadata.name}`;
  const deleted = await kube('DELETE', path);
  if (deleted.status !== 200) throw new Error(`DELETE ${path}: HTTP ${deleted.status}`);
  return {
    name: created.body.metadata.name,
    release: async () => {
      const current = await kube<{ metadata: Record<string, unknown> }>('GET', path);
      const released = await kube('PUT', path, { ...current.body, metadata: { ...current.body.metadata, finalizers: [] } });
      if (released.status !== 200) throw new Error(`PUT ${path} without its finalizer: HTTP ${released.status}: ${JSON.stringify(released.body)}`);
    },
  };
}
