import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FAILURE_THRESHOLDS,
  lastTermination,
  podFailure,
  progressDeadlineFailure,
  replicaFailure,
  startDeadline,
} from '../src/kube/pod-failures.ts';

const created = new Date('2026-01-01T10:00:00Z');
const thresholds = { crashLoopRestarts: 3, podStartTimeoutMs: 300_000 };
const at = (seconds: number) => new Date(created.getTime() + seconds * 1000);

const pod = (
  phase: string,
  container: Partial<V1ContainerStatus> = {},
  conditions: NonNullable<V1Pod['status']>['conditions'] = [],
): V1Pod => ({
  metadata: { name: 'shop-api-1', creationTimestamp: created },
  status: {
    phase,
    conditions,
    containerStatuses: [{ name: 'api', image: 'shop:1', imageID: '', ready: false, restartCount: 0, ...container }],
  },
});
const waiting = (reason: string, message?: string, restartCount = 0): Partial<V1ContainerStatus> => ({
  restartCount,
  state: { waiting: { reason, message } },
});

describe('podFailure', () => {
  it('reports an image that cannot be pulled at once, under one reason for the kubelet’s alternating ones', () => {
    for (const reason of ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName']) {
      expect(podFailure(pod('Pending', waiting(reason, 'pull access denied')), thresholds, at(1))).toEqual({
        reason: 'ImagePullBackOff',
        message: `pod shop-api-1: container api ${reason}: pull access denied`,
      });
    }
  });

  it('reports a crash loop from the third restart, with the last run’s exit code and termination message', () => {
    const crashing = (restarts: number) =>
      pod('Running', {
        ...waiting('CrashLoopBackOff', 'back-off 40s restarting failed container', restarts),
        lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'DATABASE_URL: connection refused\n' } },
      });
    expect(podFailure(crashing(2), thresholds, at(60))).toBeUndefined();
    // By default: once it crashed again after a restart.
    expect(podFailure(crashing(0), DEFAULT_FAILURE_THRESHOLDS, at(60))).toBeUndefined();
    expect(podFailure(crashing(1), DEFAULT_FAILURE_THRESHOLDS, at(60))?.reason).toBe('CrashLoopBackOff');
    expect(podFailure(crashing(3), thresholds, at(60))).toEqual({
      reason: 'CrashLoopBackOff',
      message:
        'pod shop-api-1: container api CrashLoopBackOff: back-off 40s restarting failed container; restarted 3 times; last run exited with code 1 (Error): DATABASE_URL: connection refused',
    });
  });

  it('reports a container that cannot be created at once', () => {
    expect(podFailure(pod('Pending', waiting('CreateContainerConfigError', 'configmap "x" not found')), thresholds, at(1))?.reason).toBe(
      'CreateContainerFailed',
    );
  });

  it('reports a Pending pod only after the start timeout: with the scheduler’s reason when unscheduled, else what its containers wait for', () => {
    const unscheduled = pod('Pending', {}, [
      { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 3 Insufficient cpu.' },
    ]);
    expect(startDeadline(unscheduled, thresholds)).toEqual(at(300));
    expect(podFailure(unscheduled, thresholds, at(299))).toBeUndefined();
    expect(podFailure(unscheduled, thresholds, at(300))).toEqual({
      reason: 'Unschedulable',
      message: 'pod shop-api-1 has not started 300 s after it was created: Unschedulable: 0/3 nodes are available: 3 Insufficient cpu.',
    });
    const creating = pod('Pending', waiting('ContainerCreating'), [{ type: 'PodScheduled', status: 'True' }]);
    expect(podFailure(creating, thresholds, at(301))).toEqual({
      reason: 'PodNotStarted',
      message: 'pod shop-api-1 has not started 300 s after it was created: container api ContainerCreating',
    });
  });

  it('leaves running, succeeded and deleted pods alone', () => {
    expect(podFailure(pod('Running', { state: { running: {} }, ready: true }), thresholds, at(9_999))).toBeUndefined();
    expect(startDeadline(pod('Running'), thresholds)).toBeUndefined();
    const deleted = { ...pod('Pending', waiting('ImagePullBackOff')), metadata: { name: 'gone', deletionTimestamp: created } };
    expect(podFailure(deleted, thresholds, at(9_999))).toBeUndefined();
  });
});

describe('replicaFailure and progressDeadlineFailure', () => {
  it('read the Deployment’s ReplicaFailure and ProgressDeadlineExceeded', () => {
    const quota = 'pods "shop-api-abc" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2';
    expect(
      replicaFailure({
        metadata: { name: 'shop-api' },
        status: { conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: quota }] },
      }),
    ).toEqual({
      reason: 'FailedCreate',
      message: `Deployment shop-api cannot create pods: ${quota}`,
    });
    expect(replicaFailure({ status: { replicas: 1 } })).toBeUndefined();
    const progressing = (status: string, reason: string) => ({
      metadata: { name: 'shop-api' },
      status: { conditions: [{ type: 'Progressing', status, reason, message: 'ReplicaSet "shop-api-abc" has timed out progressing.' }] },
    });
    expect(progressDeadlineFailure(progressing('False', 'ProgressDeadlineExceeded'))).toEqual({
      reason: 'ProgressDeadlineExceeded',
      message: 'Deployment shop-api: ReplicaSet "shop-api-abc" has timed out progressing.',
    });
    expect(progressDeadlineFailure(progressing('True', 'ReplicaSetUpdated'))).toBeUndefined();
  });
});

describe('lastTermination', () => {
  it('is how the newest ended pod ended', () => {
    const ended = (name: string, seconds: number, exitCode: number, message: string): V1Pod => ({
      metadata: { name, creationTimestamp: at(seconds) },
      status: {
        phase: 'Failed',
        containerStatuses: [
          { name: 'migrations', image: '', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, message } } },
        ],
      },
    });
    expect(lastTermination([ended('job-a', 0, 1, 'first'), ended('job-b', 30, 1, 'error: relation "order" does not exist')])).toBe(
      'pod job-b: container migrations exited with code 1: error: relation "order" does not exist',
    );
    expect(lastTermination([pod('Pending')])).toBeUndefined();
  });
});
