/**
 * What every Shop dashboard shares: the datasource, namespace and shop variables, and panels that always
 * carry a description, a unit and (when an alert watches the figure) the alert's threshold.
 */
import {
  DashboardBuilder,
  DashboardCursorSync,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  VariableRefresh,
  VariableSort,
  type Threshold,
} from '@grafana/grafana-foundation-sdk/dashboard';
import {
  GraphThresholdsStyleConfigBuilder,
  GraphThresholdsStyleMode,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  VizLegendOptionsBuilder,
} from '@grafana/grafana-foundation-sdk/common';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatPanelBuilder } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TimeseriesPanelBuilder } from '@grafana/grafana-foundation-sdk/timeseries';

/** The label matchers that keep a query to the Shop picked at the top of the dashboard. */
export const SHOP = 'namespace="$namespace", shop="$shop"';

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

/** The per-second rate of a counter of the Shop picked, summed, by `by` labels when given; `matchers` narrow the selector. */
export function perSecond(metric: string, options: { by?: string; matchers?: string } = {}): string {
  const sum = options.by === undefined ? 'sum' : `sum by (${options.by}) `;
  return `${sum}(rate(${metric}{${SHOP}${options.matchers ?? ''}}[$__rate_interval]))`;
}

export interface Query {
  readonly expr: string;
  /** Series name in the legend; Grafana's `{{label}}` templates work. */
  readonly legend: string;
}

export interface PanelSpec {
  readonly title: string;
  /** What the figure is and what a bad value means. */
  readonly description: string;
  /** A Grafana unit id, e.g. `reqps`, `s`, `percentunit`, `bytes`. */
  readonly unit: string;
  readonly queries: readonly Query[];
  /** Where the value turns red: the threshold of the alert that watches it. */
  readonly alertThreshold?: number;
}

function thresholds(alertThreshold: number | undefined): ThresholdsConfigBuilder {
  // The base step has no lower bound: Grafana's null.
  const steps: Threshold[] = [{ value: null, color: 'green' }];
  if (alertThreshold !== undefined) steps.push({ value: alertThreshold, color: 'red' });
  return new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(steps);
}

function target(query: Query, index: number): DataqueryBuilder {
  return new DataqueryBuilder()
    .refId(String.fromCharCode(65 + index))
    .expr(query.expr)
    .legendFormat(query.legend)
    .datasource(DATASOURCE);
}

/** A graph over time; the alert threshold, when there is one, is drawn as a dashed red line. */
export function timeseries(spec: PanelSpec): TimeseriesPanelBuilder {
  const panel = new TimeseriesPanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .unit(spec.unit)
    .datasource(DATASOURCE)
    .thresholds(thresholds(spec.alertThreshold))
    .thresholdsStyle(
      new GraphThresholdsStyleConfigBuilder().mode(
        spec.alertThreshold === undefined ? GraphThresholdsStyleMode.Off : GraphThresholdsStyleMode.Dashed,
      ),
    )
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom));
  spec.queries.forEach((query, index) => panel.withTarget(target(query, index)));
  return panel;
}

/** One number per query, reduced over the dashboard's time range (its last value). */
export function stat(spec: PanelSpec): StatPanelBuilder {
  const panel = new StatPanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .unit(spec.unit)
    .datasource(DATASOURCE)
    .thresholds(thresholds(spec.alertThreshold))
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']));
  spec.queries.forEach((query, index) => panel.withTarget(target(query, index).instant()));
  return panel;
}

/** A variable listing the values of a label, e.g. `label_values(up, namespace)`. */
export function labelVariable(name: string, label: string, query: string): QueryVariableBuilder {
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(query)
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc);
}

/** A read-only Shop-tagged dashboard with the datasource variable and a namespace variable listed by `namespaceQuery`. */
export function dashboardOf(uid: string, title: string, description: string, namespaceQuery: string): DashboardBuilder {
  return new DashboardBuilder(title)
    .uid(uid)
    .description(description)
    .tags(['shop'])
    .readonly()
    .tooltip(DashboardCursorSync.Crosshair)
    .refresh('30s')
    .time({ from: 'now-3h', to: 'now' })
    .withVariable(new DatasourceVariableBuilder('datasource').label('Prometheus').type('prometheus'))
    .withVariable(labelVariable('namespace', 'Namespace', namespaceQuery));
}

/**
 * A dashboard with the datasource, namespace and shop variables. Every target Prometheus scrapes for a
 * Shop carries the `namespace` and `shop` labels (dashboards/README.md says how), so `up` lists them all.
 */
export function shopDashboard(uid: string, title: string, description: string): DashboardBuilder {
  return dashboardOf(uid, title, description, 'label_values(up, namespace)').withVariable(
    labelVariable('shop', 'Shop', 'label_values(up{namespace="$namespace"}, shop)'),
  );
}

/** The same query at several quantiles of one histogram, e.g. p50/p95/p99. */
export function quantiles(histogram: (quantile: number) => string, levels: readonly number[]): Query[] {
  return levels.map((level) => ({ expr: histogram(level), legend: `p${Math.round(level * 100)}` }));
}
