import type { StoredShop } from '../shop-resource.ts';

/** What is provisioned for one Shop's monitoring, one value per kind of object. */
export type MonitoringPart = 'dashboards' | 'alerts' | 'pod-monitors';

/** The Shop's recommended labels, as on its rendered objects, and which part of its monitoring this is. */
export function monitoringLabels(
  shop: StoredShop,
  part: MonitoringPart,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return {
    ...extra,
    'app.kubernetes.io/name': 'shop',
    'app.kubernetes.io/instance': shop.metadata.name,
    'app.kubernetes.io/component': 'monitoring',
    'shop.dev/monitoring': part,
  };
}

/** The label pair every dashboard query and alert expression of one Shop selects on. */
export function shopSeriesLabels(shop: StoredShop): Record<string, string> {
  return { namespace: shop.metadata.namespace, shop: shop.metadata.name };
}
