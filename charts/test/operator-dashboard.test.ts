import { readFile } from 'node:fs/promises';
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { describe, expect, it } from 'vitest';
import { panelExpressions, panelsOf, variableQueries } from '../../dashboards/test/support/expressions.ts';
import { metricNames } from '../../dashboards/test/support/promql-metric-names.ts';
import { OperatorMetrics } from '../../operator/src/metrics.ts';
import { OPERATOR_DASHBOARD_FILE, operatorDashboard, renderOperatorDashboard } from '../scripts/operator-dashboard.ts';
import { OPERATOR_CHART, one, only, template } from './support/helm.ts';

/** What the operator's /metrics carries, histogram series included. */
async function operatorMetricNames(): Promise<Set<string>> {
  const metrics = await new OperatorMetrics(() => 0).registry.getMetricsAsJSON();
  return new Set(
    metrics.flatMap((metric) =>
      String(metric.type) === 'histogram' ? ['_bucket', '_sum', '_count'].map((suffix) => `${metric.name}${suffix}`) : [metric.name],
    ),
  );
}

describe("the shop-operator chart's dashboard", () => {
  const dashboard = operatorDashboard() as Dashboard;

  it('is what node charts/scripts/operator-dashboard.ts writes', async () => {
    expect(await readFile(OPERATOR_DASHBOARD_FILE, 'utf8')).toBe(renderOperatorDashboard());
  });

  it('with dashboard.enabled: a ConfigMap for the Grafana sidecar, holding the file, in the folder asked for', async () => {
    expect(only(await template(OPERATOR_CHART, { name: 'shop-operator', namespace: 'shop-system' }), 'ConfigMap')).toEqual([]);
    const objects = await template(OPERATOR_CHART, {
      name: 'shop-operator',
      namespace: 'shop-system',
      values: { dashboard: { enabled: true, labels: { team: 'sre' }, folder: 'Operators' } },
    });
    const configMap = one(objects, 'ConfigMap') as unknown as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      data: Record<string, string>;
    };
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1', team: 'sre' });
    expect(configMap.metadata.annotations).toEqual({ grafana_folder: 'Operators' });
    expect(configMap.data['shop-operator.json']).toBe(await readFile(OPERATOR_DASHBOARD_FILE, 'utf8'));
  });

  it('gives every panel a description and a unit, and queries only the release namespace picked', () => {
    const panels = panelsOf(dashboard);
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of panels) {
      expect(panel.description, panel.title).toBeTruthy();
      expect(panel.fieldConfig?.defaults?.unit, panel.title).toBeTruthy();
      for (const expr of panelExpressions(panel)) expect(expr, panel.title).toContain('namespace="$namespace"');
    }
  });

  it("and the chart's alert rules name only metrics the operator exports", async () => {
    const exported = await operatorMetricNames();
    const objects = await template(OPERATOR_CHART, {
      name: 'shop-operator',
      namespace: 'shop-system',
      values: { prometheusRule: { enabled: true } },
    });
    const rules = (
      one(objects, 'PrometheusRule') as unknown as { spec: { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> } }
    ).spec.groups.flatMap((group) => group.rules);
    const expressions = [
      ...panelsOf(dashboard).flatMap((panel) => panelExpressions(panel).map((expr) => ({ where: panel.title, expr }))),
      // label_values(metric, label): the metric is the selector.
      ...variableQueries(dashboard).map(({ where, expr }) => ({ where, expr: /^label_values\((\w+)/.exec(expr)?.[1] ?? expr })),
      ...rules.map((rule) => ({ where: rule.alert, expr: rule.expr })),
    ];
    expect(expressions.length).toBeGreaterThan(rules.length);
    for (const { where, expr } of expressions) {
      const names = metricNames(expr);
      expect(names.length, where).toBeGreaterThan(0);
      expect(
        names.filter((name) => !exported.has(name)),
        where,
      ).toEqual([]);
    }
  });
});
