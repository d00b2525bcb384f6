// Moving Jobs and Deployments along on a cluster whose node agent holds Pods (kube-cluster.ts): each
// function tells the agent, through the Pods' annotations, how their containers end or that they run,
// and waits until the real Job or Deployment controller reports the outcome.
import { eventually } from '../support/wait.ts';
import type { KubeRequest } from './kube-client.ts';
import { OUTCOME_ANNOTATION, TERMINATION_MESSAGE_ANNOTATION, type Pod, type PodOutcome } from './node-agent.ts';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface Job {
  metadata: { uid: string };
  status?: { conditions?: Condition[] };
}

interface Deployment {
  metadata: { generation: number };
  spec: { replicas?: number; selector: { matchLabels?: Record<string, string> } };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    conditions?: Condition[];
  };
}

/** Jobs end within seconds, unless they retry: the Job controller waits 10 s, then 20 s, ... before each new Pod. */
const JOB_TIMEOUT_MS = 60_000;
const DEPLOYMENT_TIMEOUT_MS = 30_000;

async function get<T>(kube: KubeRequest, path: string): Promise<T> {
  const reply = await kube<T>('GET', path);
  if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** Sets the Pod's outcome (and termination message) annotations, unless it carries them already. */
export async function directPod(kube: KubeRequest, pod: Pod, outcome: PodOutcome, terminationMessage?: string): Promise<void> {
  const wanted = {
    [OUTCOME_ANNOTATION]: outcome,
    ...(terminationMessage === undefined ? {} : { [TERMINATION_MESSAGE_ANNOTATION]: terminationMessage }),
  };
  let current = pod;
  for (let attempt = 1; ; attempt += 1) {
    const annotations = current.metadata.annotations ?? {};
    if (Object.entries(wanted).every(([key, value]) => annotations[key] === value)) return;
    const path = `/api/v1/namespaces/${current.metadata.namespace}/pods/${current.metadata.name}`;
    const reply = await kube('PUT', path, { ...current, metadata: { ...current.metadata, annotations: { ...annotations, ...wanted } } });
    if (reply.status === 200 || reply.status === 404) return;
    if (reply.status !== 409 || attempt === 5) throw new Error(`PUT ${path}: HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
    current = await get<Pod>(kube, path);
  }
}

async function podsOf(kube: KubeRequest, namespace: string, labels: Record<string, string>): Promise<Pod[]> {
  const selector = Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const list = await get<{ items: Pod[] }>(kube, `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector)}`);
  return list.items.filter((pod) => pod.metadata.deletionTimestamp === undefined);
}

/** Until the Job has the condition `type`: every Pod it starts ends with `outcome`. Returns that condition. */
async function endJob(
  kube: KubeRequest,
  namespace: string,
  name: string,
  outcome: PodOutcome,
  terminationMessage: string | undefined,
  type: string,
): Promise<Condition> {
  const path = `/apis/batch/v1/namespaces/${namespace}/jobs/${name}`;
  return eventually(
    async () => {
      const job = await get<Job>(kube, path);
      const reached = job.status?.conditions?.find((condition) => condition.type === type && condition.status === 'True');
      if (reached) return reached;
      for (const pod of await podsOf(kube, namespace, { 'batch.kubernetes.io/controller-uid': job.metadata.uid })) {
        await directPod(kube, pod, outcome, terminationMessage);
      }
      throw new Error(`the Job ${namespace}/${name} has no ${type} condition yet: ${JSON.stringify(job.status ?? {})}`);
    },
    { timeoutMs: JOB_TIMEOUT_MS, intervalMs: 100 },
  );
}

/** The Job's pod ends with exit 0 (with `terminationMessage` in its termination message file), and the Job controller reports it Complete. */
export async function completeJob(kube: KubeRequest, namespace: string, name: string, terminationMessage?: string): Promise<void> {
  await endJob(kube, namespace, name, 'exit 0', terminationMessage, 'Complete');
}

/**
 * Each pod of the Job ends with `exitCode` (1 unless given; with `terminationMessage`) until the Job
 * controller reports it Failed, with `reason` and `message` (a pattern where it names the pod):
 * BackoffLimitExceeded and "Job has reached the specified backoff limit" once its retries are used up.
 */
export async function failJob(
  kube: KubeRequest,
  namespace: string,
  name: string,
  reason: string,
  message: string | RegExp,
  terminationMessage?: string,
  exitCode = 1,
): Promise<void> {
  const failed = await endJob(kube, namespace, name, `exit ${exitCode}`, terminationMessage, 'Failed');
  const said = failed.message ?? '';
  if (failed.reason !== reason || (typeof message === 'string' ? said !== message : !message.test(said))) {
    throw new Error(`the Job ${namespace}/${name} failed with ${failed.reason}: ${said}, not ${reason}: ${String(message)}`);
  }
}

/** What `kubectl rollout status` waits for, plus the Available condition. */
function rolledOut(deployment: Deployment): boolean {
  const desired = deployment.spec.replicas ?? 1;
  const status = deployment.status ?? {};
  return (
    (status.observedGeneration ?? 0) >= deployment.metadata.generation &&
    (status.updatedReplicas ?? 0) === desired &&
    (status.replicas ?? 0) === desired &&
    (status.availableReplicas ?? 0) === desired &&
    status.conditions?.some((condition) => condition.type === 'Available' && condition.status === 'True') === true
  );
}

/** The Deployment's pods run and are ready, until the Deployment controller reports every replica of its current template updated and available. */
export async function markDeploymentAvailable(kube: KubeRequest, namespace: string, name: string): Promise<void> {
  const path = `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`;
  await eventually(
    async () => {
      const deployment = await get<Deployment>(kube, path);
      if (rolledOut(deployment)) return;
      for (const pod of await podsOf(kube, namespace, deployment.spec.selector.matchLabels ?? {})) await directPod(kube, pod, 'running');
      throw new Error(`the Deployment ${namespace}/${name} is not rolled out yet: ${JSON.stringify(deployment.status ?? {})}`);
    },
    { timeoutMs: DEPLOYMENT_TIMEOUT_MS, intervalMs: 100 },
  );
}

/** Keeps a deleted pod Terminating until the test releases it, as a kubelet keeps one until its containers stopped. */
const HOLD_FINALIZER = 'test.shop.dev/hold';

/**
 * A pod of the Deployment as its ReplicaSet made it from an earlier template (with `annotations`), now
 * Terminating on a Node being drained: deleted, and kept with its deletionTimestamp by a finalizer. It carries the Deployment's
 * selector but no ReplicaSet's pod-template-hash, so no ReplicaSet adopts it. `release` lets it go.
 */
export async function createTerminatingPod(
  kube: KubeRequest,
  namespace: string,
  deploymentName: string,
  annotations: Record<string, string>,
): Promise<{ name: string; release(): Promise<void> }> {
  const deployment = await get<Deployment & { spec: { template: { spec: Record<string, unknown> } } }>(
    kube,
    `/apis/apps/v1/namespaces/${namespace}/deployments/${deploymentName}`,
  );
  const { selector, template } = deployment.spec;
  const metadata = { generateName: `${deploymentName}-`, labels: selector.matchLabels, annotations, finalizers: [HOLD_FINALIZER] };
  // On a Node no agent serves: the scheduler leaves it alone, and no kubelet ends its containers, so it stays running while Terminating.
  const spec = { ...template.spec, nodeName: 'draining-node' };
  const created = await kube<{ metadata: { name: string } }>('POST', `/api/v1/namespaces/${namespace}/pods`, { metadata, spec });
  if (created.status !== 201)
    throw new Error(`POST a pod of Deployment ${deploymentName}: HTTP ${created.status}: ${JSON.stringify(created.body)}`);
  const path = `/api/v1/namespaces/${namespace}/pods/${created.body.metadata.name}`;
  const deleted = await kube('DELETE', path);
  if (deleted.status !== 200) throw new Error(`DELETE ${path}: HTTP ${deleted.status}`);
  return {
    name: created.body.metadata.name,
    release: async () => {
      const current = await get<{ metadata: Record<string, unknown> }>(kube, path);
      const released = await kube('PUT', path, { ...current, metadata: { ...current.metadata, finalizers: [] } });
      if (released.status !== 200)
        throw new Error(`PUT ${path} without its finalizer: HTTP ${released.status}: ${JSON.stringify(released.body)}`);
      // No kubelet on that Node confirms the containers stopped: end the grace period as a drain's force delete does.
      const gone = await kube('DELETE', path, { gracePeriodSeconds: 0 });
      if (gone.status !== 200 && gone.status !== 404)
        throw new Error(`DELETE ${path} at once: HTTP ${gone.status}: ${JSON.stringify(gone.body)}`);
    },
  };
}
