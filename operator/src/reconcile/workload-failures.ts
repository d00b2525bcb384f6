import type { CoreV1Event, V1Deployment, V1Job, V1Pod } from '@kubernetes/client-node';
import { podFailure, progressDeadlineFailure, replicaFailure, startDeadline, type WorkloadFailure } from '../kube/pod-failures.ts';
import { deploymentPodSelector, jobPodSelector } from '../kube/workload-state.ts';
import type { Pass } from './pass.ts';

/**
 * Why a Deployment that is not rolled out will not get there by waiting, read from what the
 * controllers and the kubelet report: a failing pod first (the most precise), then pods that cannot be
 * created (ReplicaFailure), then the Deployment's progress deadline. Undefined while it may still progress;
 * a Pending pod is looked at again when its start timeout ends.
 */
export async function deploymentFailure(pass: Pass, deployment: V1Deployment, component: string): Promise<WorkloadFailure | undefined> {
  const namespace = pass.shop.metadata.namespace;
  const labelSelector = deploymentPodSelector(deployment);
  const pods = (await pass.clients.core.listNamespacedPod({ namespace, labelSelector })).items;
  const failure = failingPods(pass, pods) ?? replicaFailure(deployment) ?? progressDeadlineFailure(deployment);
  return failure && inComponent(component, failure);
}

/**
 * Why a running Job's pod does not run: the kubelet cannot pull its image or create its container, it
 * stays Pending past the start timeout, or no pod exists that long after the Job was created (then
 * with the Job controller's last FailedCreate Event, e.g. a ResourceQuota).
 */
export async function jobStartFailure(pass: Pass, job: V1Job, component: string): Promise<WorkloadFailure | undefined> {
  const namespace = pass.shop.metadata.namespace;
  const pods = (await pass.clients.core.listNamespacedPod({ namespace, labelSelector: jobPodSelector(job) })).items;
  if (pods.length > 0) {
    const failure = failingPods(pass, pods);
    return failure && inComponent(component, failure);
  }
  const created = job.metadata?.creationTimestamp;
  if (created === undefined) return undefined;
  const timeoutMs = pass.failureThresholds.podStartTimeoutMs;
  const waitedMs = pass.now.getTime() - new Date(created).getTime();
  if (waitedMs < timeoutMs) {
    pass.requeueAfter(timeoutMs - waitedMs);
    return undefined;
  }
  const refused = await lastFailedCreate(pass, job);
  const message = `Job ${job.metadata?.name ?? ''} has no pod ${Math.round(timeoutMs / 1000)} s after it was created${refused ? `: ${refused}` : ''}`;
  return inComponent(component, { reason: refused ? 'FailedCreate' : 'PodNotStarted', message });
}

/** The first failing pod by name (a stable message), how many others fail; asks for a pass when a Pending pod's timeout ends. */
function failingPods(pass: Pass, pods: readonly V1Pod[]): WorkloadFailure | undefined {
  const sorted = [...pods].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const failures = sorted.map((pod) => podFailure(pod, pass.failureThresholds, pass.now)).filter((found) => found !== undefined);
  for (const pod of sorted) {
    const deadline = startDeadline(pod, pass.failureThresholds);
    if (deadline && deadline > pass.now) pass.requeueAfter(deadline.getTime() - pass.now.getTime());
  }
  const [first] = failures;
  if (!first) return undefined;
  const more = failures.length - 1;
  return more === 0 ? first : { reason: first.reason, message: `${first.message} (and ${more} more failing pod${more === 1 ? '' : 's'})` };
}

async function lastFailedCreate(pass: Pass, job: V1Job): Promise<string | undefined> {
  const fieldSelector = `involvedObject.uid=${job.metadata?.uid ?? ''},reason=FailedCreate`;
  const events = (await pass.clients.core.listNamespacedEvent({ namespace: pass.shop.metadata.namespace, fieldSelector })).items;
  const time = (event: CoreV1Event) => new Date(event.lastTimestamp ?? event.eventTime ?? event.metadata.creationTimestamp ?? 0).getTime();
  return events.sort((a, b) => time(b) - time(a))[0]?.message;
}

const inComponent = (component: string, failure: WorkloadFailure): WorkloadFailure => ({
  reason: failure.reason,
  message: `${component}: ${failure.message}`,
});
