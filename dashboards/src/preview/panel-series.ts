// What a panel draws, asked of Prometheus as Grafana asks it: a range query per target over the window
// (one value per step, a gap where Prometheus has none), or for an instant target one value at its end.
import { substituteVariables, type PanelJson, type TargetJson } from '../dashboard-json.ts';
import type { PrometheusApi, RangeWindow } from './prometheus-api.ts';
import type { VariableValues } from './variables.ts';

export interface Series {
  /** The target's legend, `{{label}}` filled from the series' labels. */
  readonly name: string;
  /** `[unix ms, value]`; `null` where there is nothing to draw (no sample, `NaN`, an infinity). */
  readonly points: ReadonlyArray<readonly [number, number | null]>;
}

export interface PanelSeries {
  readonly panel: PanelJson;
  readonly series: readonly Series[];
}

/** Grafana's legend: `legendFormat` with `{{label}}` filled in, or the series' labels when it has none. */
export function legendName(legendFormat: string | undefined, metric: Readonly<Record<string, string>>): string {
  if (legendFormat !== undefined && legendFormat !== '' && legendFormat !== '__auto') {
    return legendFormat.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, label: string) => metric[label] ?? '');
  }
  const labels = Object.entries(metric).map(([name, value]) => `${name}="${value}"`);
  return `{${labels.join(', ')}}`;
}

function drawable(value: string): number | null {
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

/** Whether any series has a value to draw. */
export function hasData(panel: PanelSeries): boolean {
  return panel.series.some((series) => series.points.some(([, value]) => value !== null));
}

async function targetSeries(target: TargetJson, expr: string, window: RangeWindow, prometheus: PrometheusApi): Promise<Series[]> {
  if (target.instant === true) {
    const samples = await prometheus.query(expr, window.end);
    return samples.map((sample) => ({
      name: legendName(target.legendFormat, sample.metric),
      points: [[sample.value[0] * 1000, drawable(sample.value[1])]],
    }));
  }
  const steps = Math.floor((window.end - window.start) / window.stepSeconds) + 1;
  const times = Array.from({ length: steps }, (_, index) => window.start + index * window.stepSeconds);
  return (await prometheus.queryRange(expr, window)).map((series) => {
    const byTime = new Map(series.values.map(([time, value]) => [time, drawable(value)]));
    return {
      name: legendName(target.legendFormat, series.metric),
      points: times.map((time) => [time * 1000, byTime.get(time) ?? null] as const),
    };
  });
}

/** Every series of the panel's targets, in target order, with `variables` substituted into each query. */
export async function panelSeries(
  panel: PanelJson,
  variables: VariableValues,
  window: RangeWindow,
  prometheus: PrometheusApi,
): Promise<PanelSeries> {
  const perTarget = await Promise.all(
    (panel.targets ?? []).map((target) => targetSeries(target, substituteVariables(target.expr, variables), window, prometheus)),
  );
  return { panel, series: perTarget.flat() };
}
