// Every panel's queries as Grafana would send them: read from the committed JSON (dashboards/json), with
// the template variables and Grafana's interval variables replaced by the values picked.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JSON_DIR } from '../../src/generate-dashboards.ts';

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

interface DashboardJson {
  readonly uid: string;
  readonly panels: ReadonlyArray<{ readonly title: string; readonly targets?: ReadonlyArray<{ readonly expr: string }> }>;
}

/** Replaces `$name` for each variable; fails on a variable left unknown, which Prometheus would refuse anyway. */
function substitute(expr: string, values: VariableValues): string {
  return expr.replace(/\$(\w+)/g, (_, name: string) => {
    const value = (values as unknown as Record<string, string | undefined>)[name];
    if (value === undefined) throw new Error(`no value for $${name} in ${expr}`);
    return value;
  });
}

export async function panelQueries(values: VariableValues): Promise<PanelQueries[]> {
  const files = (await readdir(JSON_DIR)).filter((file) => file.endsWith('.json')).sort();
  const dashboards = await Promise.all(files.map(async (file) => JSON.parse(await readFile(join(JSON_DIR, file), 'utf8')) as DashboardJson));
  return dashboards.flatMap((dashboard) =>
    dashboard.panels.map((panel) => ({
      panel: `${dashboard.uid} › ${panel.title}`,
      queries: (panel.targets ?? []).map((target) => substitute(target.expr, values)),
    })),
  );
}
