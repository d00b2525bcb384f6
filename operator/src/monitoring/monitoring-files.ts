/**
 * The dashboards and alert rules as generated in the repository (dashboards/json, alerts/shop.rules.yaml):
 * the operator provisions those files, it does not import the code that writes them. The operator
 * image carries them (images/contents.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
export const DASHBOARDS_DIR = path.join(REPO_ROOT, 'dashboards/json');
export const RULES_FILE = path.join(REPO_ROOT, 'alerts/shop.rules.yaml');
/** Where the runbooks are in the repository, each named after its alert: `<dir>/<Alert>.md`. */
export const RUNBOOKS_DIR = 'alerts/runbooks';

/** A Grafana dashboard as generated; only what the operator changes is typed. */
export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly templating: { readonly list: ReadonlyArray<{ readonly name: string }> };
  readonly [field: string]: unknown;
}

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly [field: string]: unknown;
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly AlertRule[];
}

let dashboards: readonly Dashboard[] | undefined;
let ruleGroups: readonly RuleGroup[] | undefined;

/** Read once, on first use. */
export function generatedDashboards(): readonly Dashboard[] {
  dashboards ??= readdirSync(DASHBOARDS_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(path.join(DASHBOARDS_DIR, file), 'utf8')) as Dashboard);
  return dashboards;
}

/** Read once, on first use. */
export function generatedRuleGroups(): readonly RuleGroup[] {
  ruleGroups ??= (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: RuleGroup[] }).groups;
  return ruleGroups;
}
