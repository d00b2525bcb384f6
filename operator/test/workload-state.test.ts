import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { deploymentRollout, jobOutcome } from '../src/kube/workload-state.ts';

const rolledOut: V1Deployment = {
  metadata: { name: 'shop-api', generation: 3 },
  spec: { replicas: 2, selector: {}, template: {} },
  status: {
    observedGeneration: 3,
    replicas: 2,
    updatedReplicas: 2,
    availableReplicas: 2,
    conditions: [{ type: 'Available', status: 'True' }],
  },
};

const withStatus = (status: Partial<NonNullable<V1Deployment['status']>>): V1Deployment => ({
  ...rolledOut,
  status: { ...rolledOut.status, ...status },
});

describe('deploymentRollout', () => {
  it('is done when the current generation is observed, fully updated, without old replicas, available', () => {
    expect(deploymentRollout(rolledOut)).toEqual({ done: true, message: 'shop-api: 2 of 2 replicas available' });
  });

  it.each([
    ['a generation not yet observed', withStatus({ observedGeneration: 2 }), 'generation 3 not yet observed'],
    ['replicas not yet updated', withStatus({ updatedReplicas: 1 }), '1 of 2 replicas updated'],
    ['old replicas still running', withStatus({ replicas: 3 }), '1 old replicas still running'],
    ['updated replicas not yet available', withStatus({ availableReplicas: 1 }), '1 of 2 updated replicas available'],
    [
      'the Available condition False',
      withStatus({ conditions: [{ type: 'Available', status: 'False', message: 'MinimumReplicasUnavailable' }] }),
      'not Available: MinimumReplicasUnavailable',
    ],
  ])('is not done with %s', (_what, deployment, message) => {
    expect(deploymentRollout(deployment)).toEqual({ done: false, message: expect.stringContaining(message) });
  });
});

describe('jobOutcome', () => {
  it('reads the Complete and Failed conditions', () => {
    expect(jobOutcome({ status: {} })).toEqual({ state: 'running' });
    expect(jobOutcome({ status: { conditions: [{ type: 'Complete', status: 'True' }] } })).toEqual({ state: 'complete' });
    expect(
      jobOutcome({ status: { conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'too slow' }] } }),
    ).toEqual({
      state: 'failed',
      reason: 'DeadlineExceeded',
      message: 'too slow',
    });
  });
});
