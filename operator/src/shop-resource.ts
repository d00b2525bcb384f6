import type { Shop } from '@shop/cdk8s';

/** Where the Shop resource lives in the API (operator/crd/shops.shop.dev.yaml). */
export const SHOP_API = { group: 'shop.dev', version: 'v1alpha1', plural: 'shops', kind: 'Shop' } as const;
export const SHOP_API_VERSION = `${SHOP_API.group}/${SHOP_API.version}`;

/** The work queue's key of one Shop. */
export interface ShopKey {
  readonly namespace: string;
  readonly name: string;
}

export const shopKey = (namespace: string, name: string): string => `${namespace}/${name}`;

export function parseShopKey(key: string): ShopKey {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** A Shop as read from the API server: the metadata the operator relies on is always there. */
export type StoredShop = Shop & {
  metadata: NonNullable<Shop['metadata']> & { name: string; namespace: string; uid: string; generation: number; resourceVersion: string };
};

export function isStoredShop(object: Shop): object is StoredShop {
  const metadata = object.metadata;
  return (
    typeof metadata?.name === 'string' &&
    typeof metadata.namespace === 'string' &&
    typeof metadata.uid === 'string' &&
    typeof metadata.generation === 'number' &&
    typeof metadata.resourceVersion === 'string'
  );
}
