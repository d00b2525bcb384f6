// Every PromQL expression the dashboards and the alerts hold, with where it is, for the checks on them.
import type { Dashboard, Panel } from '@grafana/grafana-foundation-sdk/dashboard';
import { ALERT_RULES } from '../../../alerts/src/alert-rules.ts';
import { buildDashboards } from '../../src/dashboards.ts';

export interface Located {
  readonly where: string;
  readonly expr: string;
}

export function panelsOf(dashboard: Dashboard): Panel[] {
  return (dashboard.panels ?? []) as Panel[];
}

export function panelExpressions(panel: Panel): string[] {
  return (panel.targets ?? []).map((target) => (target as { expr?: string }).expr ?? '');
}

/** The query of each `label_values(...)` variable. */
export function variableQueries(dashboard: Dashboard): Located[] {
  return (dashboard.templating?.list ?? [])
    .filter((variable) => variable.type === 'query')
    .map((variable) => ({ where: `${dashboard.uid} variable ${variable.name}`, expr: String(variable.query) }));
}

export function dashboardExpressions(): Located[] {
  return buildDashboards().flatMap((dashboard) =>
    panelsOf(dashboard).flatMap((panel) => panelExpressions(panel).map((expr) => ({ where: `${dashboard.uid} "${panel.title}"`, expr }))),
  );
}

export function alertExpressions(): Located[] {
  return ALERT_RULES.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr }));
}
