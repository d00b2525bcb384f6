import type { V1Deployment } from '@kubernetes/client-node';
import type { KubeObject } from '@shop/cdk8s';
import { KEYS_REVISION_ANNOTATION } from '../../keys/key-set.ts';
import { apply } from '../../kube/apply.ts';
import type { WorkloadFailure } from '../../kube/pod-failures.ts';
import { deploymentRollout, type Rollout } from '../../kube/workload-state.ts';
import type { StepConditionType } from '../conditions.ts';
import type { Pass } from '../pass.ts';
import { deploymentFailure } from '../workload-failures.ts';

export interface ComponentRollout extends Rollout {
  /** Why a rollout that is not done will not get done by waiting (reason and message of Degraded). */
  readonly failure: WorkloadFailure | undefined;
}

/**
 * Applies a component's Deployment and reports its condition: True once its current template is fully
 * rolled out; while it is not, the pods, ReplicaSets and progress deadline say whether it failed (the
 * condition's reason is then the failure's). `note` is added to the condition's message, for what the
 * replicas alone do not say.
 */
export async function rollOut(pass: Pass, component: string, deployment: KubeObject, condition: StepConditionType, note?: string): Promise<ComponentRollout> {
  const stored = await apply<V1Deployment>(pass.clients.objects, withKeysRevision(deployment, pass.generatedKeys?.keys.revision ?? 0));
  const rollout = deploymentRollout(stored);
  // A rolled-out Deployment's pods are all available: nothing to list.
  const failure = rollout.done ? undefined : await deploymentFailure(pass, stored, component);
  const message = [failure?.message ?? rollout.message, ...(note === undefined ? [] : [note])].join('; ');
  pass.report(condition, { status: rollout.done ? 'True' : 'False', reason: rollout.done ? 'RolledOut' : (failure?.reason ?? 'RollingOut'), message });
  return { ...rollout, failure };
}

/**
 * The pods read the generated keys from the Secret when they start, so a new revision of the keys is
 * stamped on the pod template to roll them out. Revision 0 (never rotated) stamps nothing.
 */
function withKeysRevision(deployment: KubeObject, revision: number): KubeObject {
  if (revision === 0) return deployment;
  const spec = deployment.spec as { template: { metadata?: { annotations?: Record<string, string> } } };
  const template = { ...spec.template, metadata: { ...spec.template.metadata, annotations: { ...spec.template.metadata?.annotations, [KEYS_REVISION_ANNOTATION]: String(revision) } } };
  return { ...deployment, spec: { ...spec, template } };
}
