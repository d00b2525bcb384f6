import { PatchStrategy, type KubernetesObject, type KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubeObject } from '@shop/cdk8s';
import { isConflict, isNotFound } from './errors.ts';
import { FIELD_MANAGER } from './ownership.ts';

/**
 * Server-side apply as the operator's field manager, forced: the operator owns every field it sets,
 * and someone else's edit to one of them is undone. Fields it does not set stay as others left them.
 * Resolves with the object as stored, status included.
 */
export function apply<T extends KubernetesObject>(objects: KubernetesObjectApi, object: KubeObject): Promise<T> {
  return objects.patch(
    inClientModel(object) as KubernetesObject,
    undefined,
    undefined,
    FIELD_MANAGER,
    true,
    PatchStrategy.ServerSideApply,
  ) as Promise<T>;
}

/**
 * client-node serializes a built-in kind through its model, whose property names are JavaScript's: a
 * NetworkPolicy ingress rule's `from` is `_from` there, and a plain `from` would be dropped without a
 * word (the rule would then let in every source). The only such field of the kinds the operator applies.
 */
function inClientModel(object: KubeObject): KubeObject {
  if (object.kind !== 'NetworkPolicy') return object;
  const spec = object.spec as { ingress?: Array<Record<string, unknown>> };
  const ingress = spec.ingress?.map(({ from, ...rule }) => (from === undefined ? rule : { ...rule, _from: from }));
  return { ...object, spec: { ...spec, ingress } };
}

/** The stored object with the same kind, namespace and name as `object`, or undefined when there is none. */
export async function readCurrent<T extends KubernetesObject>(objects: KubernetesObjectApi, object: KubeObject): Promise<T | undefined> {
  const { apiVersion, kind, metadata } = object;
  try {
    return await objects.read<T>({ apiVersion, kind, metadata: { name: metadata.name, namespace: metadata.namespace } });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Deletes `object` if it is still the one read (same uid), with its dependents in the background (a
 * Job's pods, a Deployment's ReplicaSets); one already gone, or replaced by another of the same name, is fine.
 */
export async function deleteStored(objects: KubernetesObjectApi, object: KubernetesObject): Promise<void> {
  const { apiVersion, kind, metadata } = object;
  try {
    // In the body: the API server reads no query parameter of a request that has one.
    const options = { propagationPolicy: 'Background', preconditions: { uid: metadata?.uid } };
    await objects.delete(
      { apiVersion, kind, metadata: { name: metadata?.name, namespace: metadata?.namespace } },
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      options,
    );
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}
