/**
 * Writes the alert rules of alert-rules.ts as a plain Prometheus rules file (alerts/shop.rules.yaml, what
 * promtool and a `rule_files` entry read) and as a PrometheusRule (alerts/shop.prometheusrule.yaml, for the
 * Prometheus Operator), and the shared Temporal server's rules alone as a PrometheusRule
 * (alerts/temporal-server.prometheusrule.yaml, beside the Shop operator's per-Shop rules):
 * `npm run alerts:generate`. A test fails when a file is stale.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { ALERT_GROUPS, TEMPORAL_SERVER_GROUP, type AlertGroup, type AlertRule } from './alert-rules.ts';

const ALERTS_DIR = path.resolve(import.meta.dirname, '..');
export const RULES_FILE = path.join(ALERTS_DIR, 'shop.rules.yaml');
export const PROMETHEUS_RULE_FILE = path.join(ALERTS_DIR, 'shop.prometheusrule.yaml');
export const TEMPORAL_SERVER_RULE_FILE = path.join(ALERTS_DIR, 'temporal-server.prometheusrule.yaml');

const HEADER = '# Generated from alerts/src/alert-rules.ts by npm run alerts:generate. Do not edit.\n';

/**
 * Where this repository's files are served, e.g. `https://github.com/<org>/<repo>/blob/<ref>/`: each
 * rule's runbook_url is it followed by runbookPath(). A placeholder (`.invalid` never resolves) until it
 * is set here to where yours are and `npm run alerts:generate` runs again; the Shop operator replaces it
 * in the rules it provisions with its RUNBOOK_BASE_URL (alerts/README.md).
 */
export const RUNBOOK_BASE_URL = 'https://shop-platform.invalid/';

/** The runbook's path in this repository. */
export function runbookPath(alert: string): string {
  return `alerts/runbooks/${alert}.md`;
}

export function runbookUrl(alert: string): string {
  return new URL(runbookPath(alert), RUNBOOK_BASE_URL).href;
}

function prometheusRule(rule: AlertRule) {
  return {
    alert: rule.alert,
    expr: rule.expr,
    for: rule.for,
    labels: { severity: rule.severity },
    annotations: { summary: rule.summary, description: rule.description, runbook_url: runbookUrl(rule.alert) },
  };
}

function ruleGroups(groups: readonly AlertGroup[]) {
  return groups.map((group) => ({ name: group.name, rules: group.rules.map(prometheusRule) }));
}

export function renderRulesFile(): string {
  return HEADER + stringify({ groups: ruleGroups(ALERT_GROUPS) }, { lineWidth: 0 });
}

function renderPrometheusRuleOf(name: string, groups: readonly AlertGroup[]): string {
  const resource = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name, labels: { 'app.kubernetes.io/name': name } },
    spec: { groups: ruleGroups(groups) },
  };
  return HEADER + stringify(resource, { lineWidth: 0 });
}

export function renderPrometheusRule(): string {
  return renderPrometheusRuleOf('shop', ALERT_GROUPS);
}

export function renderTemporalServerPrometheusRule(): string {
  return renderPrometheusRuleOf('temporal-server', [TEMPORAL_SERVER_GROUP]);
}

if (import.meta.main) {
  const files: Array<[string, string]> = [
    [RULES_FILE, renderRulesFile()],
    [PROMETHEUS_RULE_FILE, renderPrometheusRule()],
    [TEMPORAL_SERVER_RULE_FILE, renderTemporalServerPrometheusRule()],
  ];
  for (const [file, text] of files) await writeFile(file, text);
  process.stdout.write(`wrote ${files.map(([file]) => path.relative(process.cwd(), file)).join(', ')}\n`);
}
