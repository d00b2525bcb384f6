/**
 * The Shop operator's own Grafana dashboard, from its metrics (operator/src/metrics.ts), built with the
 * Shop dashboards' panel helpers and written to charts/shop-operator/dashboards/shop-operator.json,
 * which the chart puts in a ConfigMap for the Grafana sidecar (`dashboard.enabled`):
 * `node charts/scripts/operator-dashboard.ts`. A test fails when the file is stale.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dashboardOf, quantiles, stat, timeseries } from '../../dashboards/src/panels.ts';

export const OPERATOR_DASHBOARD_FILE = path.resolve(import.meta.dirname, '../shop-operator/dashboards/shop-operator.json');

/** The operator instances of the release namespace picked at the top. */
const NAMESPACE = 'namespace="$namespace"';

export function operatorDashboard() {
  return dashboardOf(
    'shop-operator',
    'Shop operator',
    'The Shop operator: who leads, how its reconcile passes go, and the phases of the Shops it reconciles (shop_operator_* metrics).',
    'label_values(shop_operator_leader, namespace)',
  )
    .withPanel(
      stat({
        title: 'Leader',
        description:
          'Per operator pod, 1 while it holds the Lease and reconciles. No pod at 1 for 5 minutes fires ShopOperatorLeaderLost: no Shop is reconciled.',
        unit: 'short',
        queries: [{ expr: `max by (pod) (shop_operator_leader{${NAMESPACE}})`, legend: '{{pod}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Shops by phase',
        description:
          'Shops by the phase the leader last wrote. Any outside Ready for 15 minutes fires ShopsNotReady: kubectl describe shop says which step waits.',
        unit: 'short',
        queries: [{ expr: `max by (phase) (shop_operator_shops{${NAMESPACE}})`, legend: '{{phase}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Reconcile passes by result',
        description:
          'Passes per second, success or error. Errors for 15 minutes fire ShopOperatorReconcileErrors: the API server refuses writes or does not answer.',
        unit: 'ops',
        queries: [{ expr: `sum by (result) (rate(shop_operator_reconcile_total{${NAMESPACE}}[$__rate_interval]))`, legend: '{{result}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Reconcile pass duration p50 / p95 / p99',
        description: 'Time one pass of one Shop takes. Passes taking seconds mean a slow API server; with many Shops the queue then grows.',
        unit: 's',
        queries: quantiles(
          (quantile) =>
            `histogram_quantile(${quantile}, sum by (le) (rate(shop_operator_reconcile_duration_seconds_bucket{${NAMESPACE}}[$__rate_interval])))`,
          [0.5, 0.95, 0.99],
        ),
      }),
    )
    .withPanel(
      timeseries({
        title: 'Queue depth',
        description:
          'Shops waiting for a pass on the leader. A queue that stays high means passes cannot keep up with the changes (16 run at a time).',
        unit: 'short',
        queries: [{ expr: `max(shop_operator_queue_depth{${NAMESPACE}})`, legend: 'waiting' }],
      }),
    )
    .build();
}

export const renderOperatorDashboard = (): string => `${JSON.stringify(operatorDashboard(), null, 2)}\n`;

if (import.meta.main) {
  await writeFile(OPERATOR_DASHBOARD_FILE, renderOperatorDashboard());
  process.stdout.write(`wrote ${path.relative(process.cwd(), OPERATOR_DASHBOARD_FILE)}\n`);
}
