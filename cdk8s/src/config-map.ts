import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import { sha256Hex } from './hash.ts';
import { shopObjectNames } from './names.ts';
import type { ShopContext } from './shop-context.ts';

const CONTENT_HASH_LENGTH = 10;

/**
 * `<shop>-config-<hash>`: a hash of the data, independent of the order of its keys. A change of
 * spec.config is a new ConfigMap, and with it a new pod template, so the pods roll; a pod of the old
 * template that restarts meanwhile still finds the ConfigMap it was made with (the operator keeps it
 * while a live workload names it).
 */
export function configMapName(shop: ShopContext): string {
  const entries = Object.entries(shop.spec.config ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${shopObjectNames(shop.name).config}-${sha256Hex(JSON.stringify(entries), CONTENT_HASH_LENGTH)}`;
}

/** spec.config as the ConfigMap every container reads its plain variables from. */
export class ShopConfigMap extends Construct {
  readonly name: string;

  constructor(scope: Construct, id: string, shop: ShopContext) {
    super(scope, id);
    this.name = configMapName(shop);
    new k8s.KubeConfigMap(this, 'Resource', { metadata: { name: this.name }, data: shop.spec.config ?? {} });
  }
}
