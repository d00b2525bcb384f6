import type { KubeObject } from '@shop/cdk8s';
import type { StoredShop } from '../shop-resource.ts';
import { monitoringLabels } from './monitoring-labels.ts';
import { MONITORING_API_VERSION } from './prometheus-rule.ts';

/** The processes that serve /metrics on their `http` port (HTTP_PORT_NAME, cdk8s/src/probes.ts). */
export const SCRAPED_COMPONENTS = ['api', 'worker', 'consumer'] as const;

export const podMonitorName = (shop: StoredShop): string => shop.metadata.name;

/**
 * Scrapes the Shop's api, worker and consumer pods. The Prometheus Operator adds the `namespace`
 * label; the dashboards and alerts also select on `shop`, which is the pods' instance label.
 */
export function podMonitor(shop: StoredShop): KubeObject {
  return {
    apiVersion: MONITORING_API_VERSION,
    kind: 'PodMonitor',
    metadata: { name: podMonitorName(shop), labels: monitoringLabels(shop, 'pod-monitors', shop.spec.monitoring?.podMonitors?.labels) },
    spec: {
      selector: {
        matchLabels: { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/instance': shop.metadata.name },
        matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: [...SCRAPED_COMPONENTS] }],
      },
      podMetricsEndpoints: [
        {
          port: 'http',
          path: '/metrics',
          relabelings: [
            { action: 'replace', sourceLabels: ['__meta_kubernetes_pod_label_app_kubernetes_io_instance'], targetLabel: 'shop' },
          ],
        },
      ],
    },
  };
}
