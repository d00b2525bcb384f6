import type { V1Deployment } from '@kubernetes/client-node';
import type { KubeObject } from '@shop/cdk8s';
import { KEYS_REVISION_ANNOTATION } from '../../keys/key-set.ts';
import { apply } from '../../kube/apply.ts';
import { deploymentRollout, type Rollout } from '../../kube/workload-state.ts';
import type { StepConditionType } from '../conditions.ts';
import type { Pass } from '../pass.ts';

/**
 * Applies a component's Deployment and reports its condition: True once its current template is fully
 * rolled out. `note` is added to the condition's message, for what the replicas alone do not say.
 */
export async function rollOut(pass: Pass, deployment: KubeObject, condition: StepConditionType, note?: string): Promise<Rollout> {
  const rollout = deploymentRollout(await apply<V1Deployment>(pass.clients.objects, withKeysRevision(deployment, pass.generatedKeys?.keys.revision ?? 0)));
  const message = note === undefined ? rollout.message : `${rollout.message}; ${note}`;
  pass.report(condition, { status: rollout.done ? 'True' : 'False', reason: rollout.done ? 'RolledOut' : 'RollingOut', message });
  return rollout;
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
