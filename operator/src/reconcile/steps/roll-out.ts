import { createHash } from 'node:crypto';
import type { V1Deployment, V1PodTemplateSpec } from '@kubernetes/client-node';
import { generatedKeysSecretName, type KubeObject } from '@shop/cdk8s';
import { KEYS_REVISION_ANNOTATION } from '../../keys/key-set.ts';
import { apply } from '../../kube/apply.ts';
import type { WorkloadFailure } from '../../kube/pod-failures.ts';
import { deploymentRollout, type Rollout } from '../../kube/workload-state.ts';
import type { StepConditionType } from '../conditions.ts';
import type { Pass } from '../pass.ts';
import { referencedSecret } from './referenced-secrets.ts';

/** On the Deployments' pod templates: a hash of the referenced Secret values their containers read. */
export const SECRETS_HASH_ANNOTATION = 'shop.dev/secrets-hash';
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
export async function rollOut(
  pass: Pass,
  component: string,
  deployment: KubeObject,
  condition: StepConditionType,
  note?: string,
): Promise<ComponentRollout> {
  const template = (deployment.spec as { template: V1PodTemplateSpec }).template;
  const annotations = { ...(await secretsHash(pass, template)), ...keysRevision(pass.generatedKeys?.keys.revision ?? 0) };
  const stored = await apply<V1Deployment>(pass.clients.objects, withTemplateAnnotations(deployment, annotations));
  const rollout = deploymentRollout(stored);
  // A rolled-out Deployment's pods are all available: nothing to list.
  const failure = rollout.done ? undefined : await deploymentFailure(pass, stored, component);
  const message = [failure?.message ?? rollout.message, ...(note === undefined ? [] : [note])].join('; ');
  pass.report(condition, {
    status: rollout.done ? 'True' : 'False',
    reason: rollout.done ? 'RolledOut' : (failure?.reason ?? 'RollingOut'),
    message,
  });
  return { ...rollout, failure };
}

/**
 * The pods read the generated keys from the Secret when they start, so a new revision of the keys is
 * stamped on the pod template to roll them out. Revision 0 (never rotated) stamps nothing.
 */
function keysRevision(revision: number): Record<string, string> {
  return revision === 0 ? {} : { [KEYS_REVISION_ANNOTATION]: String(revision) };
}

/**
 * The pods read the referenced Secrets (spec.secrets) when they start, so the values their template
 * reads are hashed onto it: a changed value rolls them, a change to another key or another Secret
 * does not. The generated keys are left out: their rotation rolls the pods by revision, phase by phase.
 * The Shop's uid salts the hash, so equal values in two Shops do not show as equal hashes.
 */
async function secretsHash(pass: Pass, template: V1PodTemplateSpec): Promise<Record<string, string>> {
  const generated = generatedKeysSecretName(pass.shop.metadata.name);
  const references = (template.spec?.containers ?? [])
    .flatMap((container) => container.env ?? [])
    .flatMap(({ valueFrom }) =>
      valueFrom?.secretKeyRef?.name ? [{ name: valueFrom.secretKeyRef.name, key: valueFrom.secretKeyRef.key }] : [],
    )
    .filter((reference) => reference.name !== generated);
  if (references.length === 0) return {};
  const consumed = new Map<string, string | null>();
  for (const { name, key } of references)
    consumed.set(JSON.stringify([name, key]), (await referencedSecret(pass, name))?.data?.[key] ?? null);
  const hash = createHash('sha256').update(pass.shop.metadata.uid);
  for (const entry of [...consumed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(JSON.stringify(entry));
  return { [SECRETS_HASH_ANNOTATION]: hash.digest('hex') };
}

function withTemplateAnnotations(deployment: KubeObject, annotations: Record<string, string>): KubeObject {
  if (Object.keys(annotations).length === 0) return deployment;
  const spec = deployment.spec as { template: V1PodTemplateSpec };
  const template = {
    ...spec.template,
    metadata: { ...spec.template.metadata, annotations: { ...spec.template.metadata?.annotations, ...annotations } },
  };
  return { ...deployment, spec: { ...spec, template } };
}
