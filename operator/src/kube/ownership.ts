import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import type { KubeObject, ShopManifests } from '@shop/cdk8s';
import { SHOP_API, SHOP_API_VERSION, shopKey, type StoredShop } from '../shop-resource.ts';

export const FIELD_MANAGER = 'shop-operator';
/** On everything the operator creates; its watches select on it. */
export const MANAGED_BY_LABEL = { 'app.kubernetes.io/managed-by': FIELD_MANAGER } as const;
export const MANAGED_BY_SELECTOR = Object.entries(MANAGED_BY_LABEL)
  .map(([key, value]) => `${key}=${value}`)
  .join(',');
/** The spec.image.tag an object was last applied for, to tell an old workload from a new one. */
export const VERSION_ANNOTATION = 'shop.dev/version';

export function shopOwnerReference(shop: StoredShop): V1OwnerReference {
  return {
    apiVersion: SHOP_API_VERSION,
    kind: SHOP_API.kind,
    name: shop.metadata.name,
    uid: shop.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The object placed in the Shop's namespace and labelled as managed, but not owned: deleting the Shop leaves it. */
export function managedFor(shop: StoredShop, object: KubeObject): KubeObject {
  const { metadata } = object;
  return { ...object, metadata: { ...metadata, namespace: shop.metadata.namespace, labels: { ...metadata.labels, ...MANAGED_BY_LABEL } } };
}

/** The Shop's name, as the renderer also sets it (Kubernetes' recommended label). */
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';

/** Selects the objects the operator owns for one Shop, in the Shop's namespace. */
export const ownedSelector = (shop: StoredShop): string => `${MANAGED_BY_SELECTOR},${INSTANCE_LABEL}=${shop.metadata.name}`;

/** The object placed in the Shop's namespace, owned by it and labelled as managed and as the Shop's. */
export function ownedBy(shop: StoredShop, object: KubeObject): KubeObject {
  const managed = managedFor(shop, object);
  const labels = { ...managed.metadata.labels, [INSTANCE_LABEL]: shop.metadata.name };
  return { ...managed, metadata: { ...managed.metadata, labels, ownerReferences: [shopOwnerReference(shop)] } };
}

/** Whether this very Shop (by uid, not by name: a Shop deleted and created again is another) owns `object`. */
export function isOwnedBy(shop: StoredShop, object: KubernetesObject): boolean {
  return object.metadata?.ownerReferences?.some((reference) => reference.uid === shop.metadata.uid) === true;
}

/** Every rendered object owned by the Shop and stamped with the version it is rendered for. */
export function ownedManifests(shop: StoredShop, manifests: ShopManifests): ShopManifests {
  const own = (object: KubeObject): KubeObject => {
    const owned = ownedBy(shop, object);
    return {
      ...owned,
      metadata: { ...owned.metadata, annotations: { ...owned.metadata.annotations, [VERSION_ANNOTATION]: shop.spec.image.tag } },
    };
  };
  const ownOptional = (object: KubeObject | undefined): KubeObject | undefined => (object === undefined ? undefined : own(object));
  return {
    configMap: own(manifests.configMap),
    migrationJob: own(manifests.migrationJob),
    api: {
      deployment: own(manifests.api.deployment),
      service: own(manifests.api.service),
      disruptionBudget: own(manifests.api.disruptionBudget),
      autoscaler: ownOptional(manifests.api.autoscaler),
    },
    worker: {
      deployment: own(manifests.worker.deployment),
      disruptionBudget: own(manifests.worker.disruptionBudget),
      autoscaler: ownOptional(manifests.worker.autoscaler),
    },
    consumer: { deployment: own(manifests.consumer.deployment) },
    networkPolicies: manifests.networkPolicies && {
      defaultDeny: own(manifests.networkPolicies.defaultDeny),
      api: own(manifests.networkPolicies.api),
      worker: own(manifests.networkPolicies.worker),
      consumer: own(manifests.networkPolicies.consumer),
    },
    jobEnvironments: manifests.jobEnvironments,
  };
}

/** The queue key of the Shop that controls `object`, from its ownerReferences. */
export function controllingShopKey(object: KubernetesObject): string | undefined {
  const namespace = object.metadata?.namespace;
  const owner = object.metadata?.ownerReferences?.find(
    (reference) =>
      reference.controller === true && reference.kind === SHOP_API.kind && reference.apiVersion.startsWith(`${SHOP_API.group}/`),
  );
  return owner && namespace ? shopKey(namespace, owner.name) : undefined;
}

export function appliedVersion(object: KubernetesObject | undefined): string | undefined {
  return object?.metadata?.annotations?.[VERSION_ANNOTATION];
}
