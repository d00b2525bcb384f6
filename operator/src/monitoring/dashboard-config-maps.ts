import { createHash } from 'node:crypto';
import type { KubeObject } from '@shop/cdk8s';
import type { StoredShop } from '../shop-resource.ts';
import { generatedDashboards, type Dashboard } from './monitoring-files.ts';
import { monitoringLabels, shopSeriesLabels } from './monitoring-labels.ts';

/** What the Grafana sidecar (k8s-sidecar, as in kube-prometheus-stack) looks for. */
export const SIDECAR_LABEL = { grafana_dashboard: '1' } as const;
export const FOLDER_ANNOTATION = 'grafana_folder';
export const DEFAULT_FOLDER = 'Shop';

const dashboardConfigMapName = (shop: StoredShop, dashboard: Dashboard): string => `${shop.metadata.name}-dashboard-${dashboard.uid}`;

/** One ConfigMap per dashboard, each holding this Shop's copy of it. */
export function dashboardConfigMaps(shop: StoredShop): KubeObject[] {
  const settings = shop.spec.monitoring?.dashboards;
  return generatedDashboards().map((dashboard) => {
    const copy = shopDashboard(shop, dashboard);
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: dashboardConfigMapName(shop, dashboard),
        labels: { ...monitoringLabels(shop, 'dashboards', settings?.labels), ...SIDECAR_LABEL },
        annotations: { [FOLDER_ANNOTATION]: settings?.folder ?? DEFAULT_FOLDER },
      },
      // The sidecar writes every key as a file into one folder: the key must be unique across Shops.
      data: { [`${copy.uid}.json`]: JSON.stringify(copy) },
    };
  });
}

/**
 * The dashboard as this Shop's: Grafana keeps one dashboard per uid, so every Shop's copy gets its own
 * uid and title, and opens on the Shop's namespace and name (the variables stay selectable).
 */
function shopDashboard(shop: StoredShop, dashboard: Dashboard): Dashboard {
  const { namespace, name } = shop.metadata;
  const selected: Record<string, string> = shopSeriesLabels(shop);
  const suffix = createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, 8);
  const list = dashboard.templating.list.map((variable) => {
    const value = selected[variable.name];
    return value === undefined ? variable : { ...variable, current: { text: value, value } };
  });
  return {
    ...dashboard,
    uid: `${dashboard.uid}-${suffix}`,
    title: `${dashboard.title} (${namespace}/${name})`,
    templating: { ...dashboard.templating, list },
  };
}
