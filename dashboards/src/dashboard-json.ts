/**
 * The generated dashboards as Grafana reads them (dashboards/json/*.json): the fields the previews and
 * the live tests use, and Grafana's replacement of `$variable` in a query.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JSON_DIR } from './generate-dashboards.ts';

export interface TargetJson {
  readonly refId: string;
  readonly expr: string;
  readonly legendFormat?: string;
  /** One value at the end of the time range instead of a series over it. */
  readonly instant?: boolean;
}

export interface ThresholdStepJson {
  /** `null` for the base step, which has no lower bound. */
  readonly value: number | null;
  readonly color: string;
}

export interface PanelJson {
  readonly type: string;
  readonly title: string;
  /** On Grafana's grid: 24 columns, rows of 30 px. */
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly fieldConfig: {
    readonly defaults: {
      readonly unit?: string;
      readonly thresholds?: { readonly steps: readonly ThresholdStepJson[] };
      readonly custom?: { readonly thresholdsStyle?: { readonly mode: string } };
    };
  };
  readonly targets?: readonly TargetJson[];
}

export interface VariableJson {
  readonly type: string;
  readonly name: string;
  readonly query?: string;
}

export interface DashboardJson {
  readonly uid: string;
  readonly title: string;
  readonly templating: { readonly list: readonly VariableJson[] };
  readonly panels: readonly PanelJson[];
}

/** Every dashboard in `dir`, in file name order. */
export async function readDashboards(dir = JSON_DIR): Promise<DashboardJson[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(files.map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as DashboardJson));
}

/** Replaces `$name` for each variable; fails on a variable left unknown, which Prometheus would refuse anyway. */
export function substituteVariables(expr: string, values: Readonly<Record<string, string>>): string {
  return expr.replace(/\$(\w+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for $${name} in ${expr}`);
    return value;
  });
}
