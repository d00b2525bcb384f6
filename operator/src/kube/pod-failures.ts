import type { V1ContainerStatus, V1Deployment, V1Pod } from '@kubernetes/client-node';

/** Something a workload will not get over by waiting: a Degraded reason, and what happened, for people. */
export interface WorkloadFailure {
  /** CamelCase, for machines. */
  readonly reason: string;
  readonly message: string;
}

export interface FailureThresholds {
  /** A container waiting in CrashLoopBackOff is a failure once it has restarted this often. */
  readonly crashLoopRestarts: number;
  /** A pod still Pending this long after it was created is a failure. */
  readonly podStartTimeoutMs: number;
}

/**
 * A container that crashed again after a restart, now held back by the kubelet: reported within the
 * first back-off (10 s), or at once by a kubelet that restarts the first crash without waiting. The
 * condition clears as soon as the pod runs ready, so a dependency that was briefly down shows as a
 * short Degraded with its reason rather than as a Deploying that says nothing for a minute.
 */
export const CRASH_LOOP_RESTARTS = 1;

/** Longer than an image pull and a scheduling round take, shorter than a Deployment's default progress deadline (10 min). */
export const DEFAULT_POD_START_TIMEOUT_MS = 5 * 60_000;

export const DEFAULT_FAILURE_THRESHOLDS: FailureThresholds = {
  crashLoopRestarts: CRASH_LOOP_RESTARTS,
  podStartTimeoutMs: DEFAULT_POD_START_TIMEOUT_MS,
};

/** The kubelet's waiting reasons of a container whose image it cannot pull: reported as ImagePullBackOff, which they alternate with. */
const IMAGE_PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
/** The kubelet's waiting reasons of a container it cannot create or start, e.g. a missing ConfigMap key. */
const CREATE_REASONS = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/** Kubernetes caps an Event's message at 1024 characters; a termination message can be 4 KiB of logs. */
const MAX_DETAIL_LENGTH = 512;

/**
 * What keeps `pod` from running, by the thresholds: an image that cannot be pulled or a container that
 * cannot be created at once, a crash loop after `crashLoopRestarts` restarts, and a pod still Pending
 * after `podStartTimeoutMs` (with the scheduler's reason when it is not scheduled).
 */
export function podFailure(pod: V1Pod, thresholds: FailureThresholds, now: Date): WorkloadFailure | undefined {
  if (pod.metadata?.deletionTimestamp) return undefined;
  const name = `pod ${pod.metadata?.name ?? '(unnamed)'}`;
  for (const container of containerStatuses(pod)) {
    const waiting = container.state?.waiting;
    const reason = waiting?.reason ?? '';
    const said = `${name}: container ${container.name} ${reason}${waiting?.message ? `: ${cut(waiting.message)}` : ''}`;
    if (IMAGE_PULL_REASONS.has(reason)) return { reason: 'ImagePullBackOff', message: said };
    if (CREATE_REASONS.has(reason)) return { reason: 'CreateContainerFailed', message: said };
    if (reason === 'CrashLoopBackOff' && container.restartCount >= thresholds.crashLoopRestarts) {
      return { reason: 'CrashLoopBackOff', message: `${said}; restarted ${container.restartCount} times${lastExit(container)}` };
    }
  }
  const deadline = startDeadline(pod, thresholds);
  if (deadline === undefined || now < deadline) return undefined;
  const waited = `has not started ${Math.round(thresholds.podStartTimeoutMs / 1000)} s after it was created`;
  const scheduled = pod.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return {
      reason: 'Unschedulable',
      message: `${name} ${waited}: ${scheduled.reason ?? 'not scheduled'}${scheduled.message ? `: ${cut(scheduled.message)}` : ''}`,
    };
  }
  const waiting = containerStatuses(pod).flatMap((container) =>
    container.state?.waiting?.reason ? [`container ${container.name} ${container.state.waiting.reason}`] : [],
  );
  return { reason: 'PodNotStarted', message: `${name} ${waited}${waiting.length > 0 ? `: ${waiting.join(', ')}` : ''}` };
}

/** When a Pending pod becomes a failure; undefined for a pod past Pending. */
export function startDeadline(pod: V1Pod, thresholds: FailureThresholds): Date | undefined {
  const created = pod.metadata?.creationTimestamp;
  if (pod.status?.phase !== 'Pending' || created === undefined || pod.metadata?.deletionTimestamp) return undefined;
  return new Date(new Date(created).getTime() + thresholds.podStartTimeoutMs);
}

/**
 * The ReplicaSet controller could not create pods (a ResourceQuota, an admission webhook, a PodSecurity
 * level): the Deployment controller copies the ReplicaSet's ReplicaFailure condition to the Deployment.
 */
export function replicaFailure(deployment: V1Deployment): WorkloadFailure | undefined {
  const failure = deployment.status?.conditions?.find((condition) => condition.type === 'ReplicaFailure' && condition.status === 'True');
  if (!failure) return undefined;
  return {
    reason: 'FailedCreate',
    message: `Deployment ${deployment.metadata?.name ?? ''} cannot create pods: ${cut(failure.message ?? failure.reason ?? 'ReplicaFailure')}`,
  };
}

/** The Deployment made no progress for its progressDeadlineSeconds; the controller stops trying to tell. */
export function progressDeadlineFailure(deployment: V1Deployment): WorkloadFailure | undefined {
  const progressing = deployment.status?.conditions?.find((condition) => condition.type === 'Progressing');
  if (progressing?.status !== 'False' || progressing.reason !== 'ProgressDeadlineExceeded') return undefined;
  return {
    reason: 'ProgressDeadlineExceeded',
    message: `Deployment ${deployment.metadata?.name ?? ''}: ${progressing.message ?? 'ProgressDeadlineExceeded'}`,
  };
}

/** How the newest of `pods` that ended ended: its exit code and termination message, e.g. for a failed Job. */
export function lastTermination(pods: readonly V1Pod[]): string | undefined {
  const created = (pod: V1Pod) => new Date(pod.metadata?.creationTimestamp ?? 0).getTime();
  for (const pod of [...pods].sort((a, b) => created(b) - created(a))) {
    const ended = containerStatuses(pod).find((container) => container.state?.terminated);
    const terminated = ended?.state?.terminated;
    if (ended && terminated) return `pod ${pod.metadata?.name ?? ''}: container ${ended.name} ${describeExit(terminated)}`;
  }
  return undefined;
}

function containerStatuses(pod: V1Pod): V1ContainerStatus[] {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
}

/** The container's previous run: the crash the back-off is about. */
function lastExit(container: V1ContainerStatus): string {
  const terminated = container.lastState?.terminated;
  return terminated ? `; last run ${describeExit(terminated)}` : '';
}

function describeExit(terminated: { exitCode: number; reason?: string; message?: string }): string {
  const reason = terminated.reason ? ` (${terminated.reason})` : '';
  const message = terminated.message?.trim() ? `: ${cut(terminated.message.trim())}` : '';
  return `exited with code ${terminated.exitCode}${reason}${message}`;
}

/** The end of a long text: the last lines of a log say why it stopped. */
function cut(text: string): string {
  return text.length <= MAX_DETAIL_LENGTH ? text : `…${text.slice(-MAX_DETAIL_LENGTH)}`;
}
