import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import { sha256Hex } from './hash.ts';
import { shopObjectNames } from './names.ts';
import type { ShopContext } from './shop-context.ts';

/** On each pod template: a change of spec.config changes the template, so the pods roll. */
export const CONFIG_HASH_ANNOTATION = 'shop.dev/config-hash';

/** spec.config as the ConfigMap every container reads its plain variables from. */
export class ShopConfigMap extends Construct {
  readonly name: string;
  /** SHA-256 of the data, independent of the order of its keys. */
  readonly hash: string;

  constructor(scope: Construct, id: string, shop: ShopContext) {
    super(scope, id);
    const data = shop.spec.config ?? {};
    this.name = shopObjectNames(shop.name).config;
    this.hash = sha256Hex(JSON.stringify(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    new k8s.KubeConfigMap(this, 'Resource', { metadata: { name: this.name }, data });
  }
}
