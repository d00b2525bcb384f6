import { versionLabel } from './names.ts';
import type { ShopContext } from './shop-context.ts';

export type Component = 'api' | 'worker' | 'consumer' | 'migrations';

/** What every object of one Shop carries (Kubernetes' recommended labels). */
export function shopLabels(shop: ShopContext): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'shop',
    'app.kubernetes.io/instance': shop.name,
    'app.kubernetes.io/version': versionLabel(shop.spec.image.tag),
    'app.kubernetes.io/managed-by': 'shop-operator',
  };
}

export function componentLabels(shop: ShopContext, component: Component): Record<string, string> {
  return { ...shopLabels(shop), 'app.kubernetes.io/component': component };
}

/** Selects one component's pods; without the version, because a Deployment's selector is immutable. */
export function selectorLabels(shop: ShopContext, component: Component): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'shop',
    'app.kubernetes.io/instance': shop.name,
    'app.kubernetes.io/component': component,
  };
}
