// One panel's body as HTML: a time series drawn by ECharts as SVG on the server with its legend under
// it, a stat as big numbers coloured by the panel's thresholds, or "No data".
import * as echarts from 'echarts';
import type { PanelJson, ThresholdStepJson } from '../dashboard-json.ts';
import { hasData, type PanelSeries, type Series } from './panel-series.ts';
import type { RangeWindow } from './prometheus-api.ts';
import { SERIES_PALETTE, THEME, thresholdColor } from './theme.ts';
import { formatValue } from './units.ts';

export interface Size {
  readonly width: number;
  readonly height: number;
}

const NO_DATA = '<div class="no-data">No data</div>';

/** The legend is HTML, laid out by the browser: ECharts measures text without one, and overlaps it. */
const LEGEND_ROW_PX = 20;
/** About what a legend entry takes on a line: its swatch and gaps, and each character of its name. */
const LEGEND_ITEM_PX = 36;
const LEGEND_CHAR_PX = 7.5;

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The steps drawn as lines: every step with a lower bound, when the panel's thresholds style shows them. */
function thresholdLines(panel: PanelJson): ThresholdStepJson[] {
  const mode = panel.fieldConfig.defaults.custom?.thresholdsStyle?.mode ?? 'off';
  if (mode === 'off') return [];
  return (panel.fieldConfig.defaults.thresholds?.steps ?? []).filter((step) => step.value !== null);
}

/** The smallest 1, 2, 2.5 or 5 times a power of ten at or above `value`: an axis end with round labels. */
function roundUp(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 2.5, 5, 10].find((factor) => factor * power >= value) ?? 10) * power;
}

function legendRows(series: readonly Series[], width: number): number {
  let rows = 1;
  let used = 0;
  for (const { name } of series) {
    const item = LEGEND_ITEM_PX + name.length * LEGEND_CHAR_PX;
    if (used > 0 && used + item > width) {
      rows += 1;
      used = 0;
    }
    used += item;
  }
  return rows;
}

function timeseriesHtml({ panel, series }: PanelSeries, window: RangeWindow, size: Size): string {
  const unit = panel.fieldConfig.defaults.unit;
  const thresholds = thresholdLines(panel);
  const highestThreshold = Math.max(...thresholds.map((step) => step.value ?? 0));
  const legendHeight = legendRows(series, size.width) * LEGEND_ROW_PX;
  const axisText = { color: THEME.weakText, fontFamily: THEME.font, fontSize: 11 };
  const gridLines = { lineStyle: { color: THEME.gridLine } };
  const color = (index: number) => SERIES_PALETTE[index % SERIES_PALETTE.length];
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width, height: size.height - legendHeight });
  try {
    chart.setOption({
      animation: false,
      useUTC: true,
      textStyle: { fontFamily: THEME.font },
      // ECharts sizes the axis labels without a browser's fonts, a little short: the left margin makes up
      // for it; the right one holds half of the last time label, centred on the right edge.
      grid: { left: 14, right: 28, top: 8, bottom: 4, containLabel: true },
      xAxis: {
        type: 'time',
        min: window.start * 1000,
        max: window.end * 1000,
        axisLabel: { ...axisText, formatter: '{HH}:{mm}:{ss}', hideOverlap: true },
        axisLine: gridLines,
        splitLine: { show: true, ...gridLines },
      },
      yAxis: {
        type: 'value',
        // Grafana keeps a drawn threshold in view even while every value is far below it.
        max: thresholds.length === 0 ? undefined : (extent: { max: number }) => roundUp(Math.max(extent.max, highestThreshold * 1.1)),
        axisLabel: { ...axisText, formatter: (value: number) => formatValue(value, unit) },
        splitLine: gridLines,
      },
      series: series.map((each, index) => ({
        type: 'line',
        name: each.name,
        color: color(index),
        data: each.points,
        showSymbol: false,
        connectNulls: false,
        lineStyle: { width: 1.5 },
        areaStyle: { opacity: 0.08 },
        markLine:
          index === 0 && thresholds.length > 0
            ? {
                silent: true,
                symbol: 'none',
                label: { show: false },
                data: thresholds.map((step) => ({
                  yAxis: step.value,
                  lineStyle: { color: thresholdColor(step.color), type: 'dashed', width: 1 },
                })),
              }
            : undefined,
      })),
    });
    const legend = series.map(
      (each, index) => `<span class="legend-item"><i style="background:${color(index)}"></i>${escapeHtml(each.name)}</span>`,
    );
    return `${chart.renderToSVGString()}<div class="legend">${legend.join('')}</div>`;
  } finally {
    chart.dispose();
  }
}

/** The colour of the highest step at or below `value` (the base step has no lower bound). */
function stepColor(panel: PanelJson, value: number): string {
  const steps = panel.fieldConfig.defaults.thresholds?.steps ?? [];
  const reached = steps.filter((step) => step.value === null || value >= step.value);
  return thresholdColor(reached.at(-1)?.color ?? 'green');
}

/** One big number per series, its last value, as Grafana's stat shows `lastNotNull`. */
function statHtml({ panel, series }: PanelSeries): string {
  const unit = panel.fieldConfig.defaults.unit;
  const values = series.map((each) => {
    const value = each.points.findLast(([, point]) => point !== null)?.[1] ?? null;
    if (value === null)
      return `<div class="stat"><div class="stat-value">No data</div><div class="stat-name">${escapeHtml(each.name)}</div></div>`;
    return `<div class="stat"><div class="stat-value" style="color:${stepColor(panel, value)}">${escapeHtml(formatValue(value, unit))}</div><div class="stat-name">${escapeHtml(each.name)}</div></div>`;
  });
  return `<div class="stats">${values.join('')}</div>`;
}

export function renderPanelBody(data: PanelSeries, window: RangeWindow, size: Size): string {
  const { type, title } = data.panel;
  if (type !== 'timeseries' && type !== 'stat' && type !== 'gauge') throw new Error(`the preview draws no ${type} panel (${title})`);
  if (!hasData(data)) return NO_DATA;
  return type === 'timeseries' ? timeseriesHtml(data, window, size) : statHtml(data);
}
