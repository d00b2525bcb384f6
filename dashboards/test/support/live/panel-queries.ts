// Every panel's queries as Grafana would send them: read from the committed JSON (dashboards/json), with
// the template variables and Grafana's interval variables replaced by the values picked.
import { readDashboards, substituteVariables } from '../../../src/dashboard-json.ts';

export interface PanelQueries {
  /** `<dashboard uid> › <panel title>` */
  readonly panel: string;
  readonly queries: readonly string[];
}

export interface VariableValues {
  readonly namespace: string;
  readonly shop: string;
  readonly temporal_namespace: string;
  /** Grafana's `$__rate_interval` and `$__range`, as PromQL durations (e.g. `90s`). */
  readonly __rate_interval: string;
  readonly __range: string;
}

export async function panelQueries(values: VariableValues): Promise<PanelQueries[]> {
  const dashboards = await readDashboards();
  return dashboards.flatMap((dashboard) =>
    dashboard.panels.map((panel) => ({
      panel: `${dashboard.uid} › ${panel.title}`,
      queries: (panel.targets ?? []).map((target) => substituteVariables(target.expr, { ...values })),
    })),
  );
}
