// One dashboard previewed: its variables resolved, each panel's queries asked of Prometheus at the step
// Grafana would pick for the panel's width, and the page that draws them.
import type { DashboardJson, PanelJson } from '../dashboard-json.ts';
import { bodySize, dashboardPage, panelWidth } from './page.ts';
import { hasData, panelSeries } from './panel-series.ts';
import type { PrometheusApi, RangeWindow } from './prometheus-api.ts';
import { renderPanelBody } from './render-panel.ts';
import { intervalVariables, resolveVariables, type VariableValues } from './variables.ts';

export interface PreviewOptions {
  readonly prometheus: PrometheusApi;
  /** Variable values picked; the others take the first value their query lists. */
  readonly picked: VariableValues;
  /** Unix seconds. */
  readonly end: number;
  readonly rangeSeconds: number;
  /** Prometheus's scrape interval: the shortest step, and what `$__rate_interval` adds to it. */
  readonly scrapeIntervalSeconds: number;
}

export interface DashboardPreview {
  readonly html: string;
  readonly variables: VariableValues;
  readonly panels: ReadonlyArray<{ readonly title: string; readonly hasData: boolean }>;
}

/** About one data point per pixel, as Grafana's max data points, but never finer than the scrape interval. */
function panelWindow(panel: PanelJson, options: PreviewOptions): RangeWindow {
  const stepSeconds = Math.max(options.scrapeIntervalSeconds, Math.ceil(options.rangeSeconds / panelWidth(panel)));
  const end = Math.floor(options.end / stepSeconds) * stepSeconds;
  return { start: end - Math.floor(options.rangeSeconds / stepSeconds) * stepSeconds, end, stepSeconds };
}

export async function previewDashboard(dashboard: DashboardJson, options: PreviewOptions): Promise<DashboardPreview> {
  const variables = await resolveVariables(dashboard, options.picked, options.prometheus);
  const panels = await Promise.all(
    dashboard.panels.map(async (panel) => {
      const window = panelWindow(panel, options);
      const interval = intervalVariables(window.stepSeconds, options.scrapeIntervalSeconds, options.rangeSeconds);
      const data = await panelSeries(panel, { ...variables, ...interval }, window, options.prometheus);
      return { panel, body: renderPanelBody(data, window, bodySize(panel)), hasData: hasData(data) };
    }),
  );
  return {
    html: dashboardPage(dashboard, variables, { start: options.end - options.rangeSeconds, end: options.end }, panels),
    variables,
    panels: panels.map(({ panel, hasData }) => ({ title: panel.title, hasData })),
  };
}
