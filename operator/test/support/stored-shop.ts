import type { ShopSpec } from '@shop/cdk8s';
import type { StoredShop } from '../../src/shop-resource.ts';
import { shopManifest } from './shops.ts';

/** A Shop as the API server would hand it to a pass, for tests of what the operator builds from it. */
export function storedShop(namespace: string, name: string, spec: Partial<ShopSpec> = {}): StoredShop {
  const shop = shopManifest(name, '1.0.0', spec);
  return { ...shop, metadata: { name, namespace, uid: `uid-of-${name}`, generation: 1, resourceVersion: '1' } };
}
