// A dashboard as one self-contained HTML page: the panels where Grafana's grid puts them (24 columns,
// rows of 30 px), each with its title and body, under a header naming the variables and the time range.
import type { DashboardJson, PanelJson } from '../dashboard-json.ts';
import type { RangeWindow } from './prometheus-api.ts';
import { escapeHtml, type Size } from './render-panel.ts';
import { THEME } from './theme.ts';
import { NO_VALUE, type VariableValues } from './variables.ts';

export const PAGE_WIDTH = 1600;
const PAGE_PADDING = 16;
const GAP = 8;
const ROW_HEIGHT = 30;
const COLUMNS = 24;
const TITLE_HEIGHT = 32;
const BODY_PADDING = 8;

const COLUMN_WIDTH = (PAGE_WIDTH - 2 * PAGE_PADDING - (COLUMNS - 1) * GAP) / COLUMNS;

/** The panel's width in pixels on the page: what Grafana sizes its data points by. */
export function panelWidth(panel: PanelJson): number {
  return Math.round(panel.gridPos.w * COLUMN_WIDTH + (panel.gridPos.w - 1) * GAP);
}

/** The space a panel's body has, below its title. */
export function bodySize(panel: PanelJson): Size {
  const height = panel.gridPos.h * ROW_HEIGHT + (panel.gridPos.h - 1) * GAP;
  return { width: panelWidth(panel) - 2 * BODY_PADDING, height: height - TITLE_HEIGHT - BODY_PADDING };
}

export interface RenderedPanel {
  readonly panel: PanelJson;
  /** HTML: an SVG chart, a stat, or "No data". */
  readonly body: string;
}

const STYLE = `
* { box-sizing: border-box; }
body { margin: 0; padding: ${PAGE_PADDING}px; width: ${PAGE_WIDTH}px; background: ${THEME.page}; color: ${THEME.text}; font-family: ${THEME.font}; }
header { margin-bottom: ${GAP * 2}px; }
h1 { font-size: 20px; font-weight: 500; margin: 0 0 6px; }
.context { color: ${THEME.weakText}; font-size: 13px; }
.context b { color: ${THEME.text}; font-weight: 500; }
.grid { display: grid; grid-template-columns: repeat(${COLUMNS}, 1fr); grid-auto-rows: ${ROW_HEIGHT}px; gap: ${GAP}px; }
.panel { background: ${THEME.panel}; border: 1px solid ${THEME.border}; border-radius: 2px; display: flex; flex-direction: column; overflow: hidden; }
.panel h2 { height: ${TITLE_HEIGHT}px; margin: 0; padding: 0 ${BODY_PADDING}px; font-size: 14px; font-weight: 500; line-height: ${TITLE_HEIGHT}px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.body { flex: 1; padding: 0 ${BODY_PADDING}px ${BODY_PADDING}px; }
.body svg { display: block; }
.legend { display: flex; flex-wrap: wrap; font-size: 12px; line-height: 20px; }
.legend-item { margin-right: 16px; white-space: nowrap; }
.legend-item i { display: inline-block; width: 14px; height: 4px; margin-right: 6px; vertical-align: middle; }
.no-data { height: 100%; display: flex; align-items: center; justify-content: center; color: ${THEME.weakText}; font-size: 16px; }
.stats { height: 100%; display: flex; align-items: center; justify-content: space-around; }
.stat { text-align: center; }
.stat-value { font-size: 56px; font-weight: 500; }
.stat-name { color: ${THEME.weakText}; font-size: 14px; margin-top: 4px; }
`;

function iso(unixSeconds: number): string {
  return new Date(unixSeconds * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

function panelSection({ panel, body }: RenderedPanel): string {
  const { x, y, w, h } = panel.gridPos;
  const place = `grid-column: ${x + 1} / span ${w}; grid-row: ${y + 1} / span ${h};`;
  return `<section class="panel" style="${place}" data-title="${escapeHtml(panel.title)}"><h2>${escapeHtml(panel.title)}</h2><div class="body">${body}</div></section>`;
}

/** `range` is what the header names: the time range asked of Prometheus, in unix seconds. */
export function dashboardPage(
  dashboard: DashboardJson,
  variables: VariableValues,
  range: Pick<RangeWindow, 'start' | 'end'>,
  panels: readonly RenderedPanel[],
): string {
  const picked = Object.entries(variables)
    .map(([name, value]) => `${escapeHtml(name)} <b>${value === NO_VALUE ? '(none)' : escapeHtml(value)}</b>`)
    .join(' · ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(dashboard.title)}</title><style>${STYLE}</style></head>
<body>
<header><h1>${escapeHtml(dashboard.title)}</h1><div class="context">${picked} · ${iso(range.start)} to ${iso(range.end)}</div></header>
<div class="grid">
${panels.map(panelSection).join('\n')}
</div>
</body></html>
`;
}
