import type { V1Deployment } from '@kubernetes/client-node';
import type { KubeObject } from '@shop/cdk8s';
import { apply } from '../../kube/apply.ts';
import { deploymentRollout, type Rollout } from '../../kube/workload-state.ts';
import type { StepConditionType } from '../conditions.ts';
import type { Pass } from '../pass.ts';

/**
 * Applies a component's Deployment and reports its condition: True once its current template is fully
 * rolled out. `note` is added to the condition's message, for what the replicas alone do not say.
 */
export async function rollOut(pass: Pass, deployment: KubeObject, condition: StepConditionType, note?: string): Promise<Rollout> {
  const rollout = deploymentRollout(await apply<V1Deployment>(pass.clients.objects, deployment));
  const message = note === undefined ? rollout.message : `${rollout.message}; ${note}`;
  pass.report(condition, { status: rollout.done ? 'True' : 'False', reason: rollout.done ? 'RolledOut' : 'RollingOut', message });
  return rollout;
}
