// The values a dashboard's variables take in a preview: the ones picked on the command line, else the
// first value their query lists (what Grafana shows when nothing was picked), and Grafana's interval
// variables for a panel's step.
import { substituteVariables, type DashboardJson } from '../dashboard-json.ts';
import type { PrometheusApi } from './prometheus-api.ts';

/** `label_values(label)` or `label_values(selector, label)`: the only variable queries the dashboards have. */
const LABEL_VALUES = /^label_values\(\s*(?:(.+?)\s*,\s*)?(\w+)\s*\)$/;

/** A variable whose query lists no value: its selectors then match nothing, and the panels say "No data". */
export const NO_VALUE = '';

export type VariableValues = Readonly<Record<string, string>>;

export async function resolveVariables(
  dashboard: DashboardJson,
  picked: VariableValues,
  prometheus: PrometheusApi,
): Promise<VariableValues> {
  const values: Record<string, string> = {};
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query' || variable.query === undefined) continue;
    const choice = picked[variable.name];
    if (choice !== undefined) {
      values[variable.name] = choice;
      continue;
    }
    const match = LABEL_VALUES.exec(variable.query);
    if (match === null)
      throw new Error(`${dashboard.uid}: variable ${variable.name} has a query the preview cannot list: ${variable.query}`);
    const [, selector, label = ''] = match;
    const listed = await prometheus.labelValues(label, selector === undefined ? undefined : substituteVariables(selector, values));
    values[variable.name] = listed[0] ?? NO_VALUE;
  }
  return values;
}

/**
 * Grafana's `$__interval` (the step), `$__rate_interval` (the step plus one scrape, and at least four
 * scrapes, so a rate always has two samples) and `$__range`, as PromQL durations.
 */
export function intervalVariables(stepSeconds: number, scrapeIntervalSeconds: number, rangeSeconds: number): VariableValues {
  return {
    __interval: `${stepSeconds}s`,
    __rate_interval: `${Math.max(stepSeconds + scrapeIntervalSeconds, 4 * scrapeIntervalSeconds)}s`,
    __range: `${rangeSeconds}s`,
  };
}
