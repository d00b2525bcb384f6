import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { promtoolBinary } from '../../test/infra/prometheus.ts';
import { run } from '../../test/infra/proc.ts';
import { buildDashboards } from '../../dashboards/src/dashboards.ts';
import { ALERT_RULES } from '../src/alert-rules.ts';
import {
  PROMETHEUS_RULE_FILE,
  renderPrometheusRule,
  renderRulesFile,
  renderTemporalServerPrometheusRule,
  RULES_FILE,
  runbookPath,
  TEMPORAL_SERVER_RULE_FILE,
} from '../src/generate-rules.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const UNIT_TESTS = path.join(import.meta.dirname, 'shop.rules.test.yaml');

interface UnitTests {
  tests: Array<{ name: string; alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}

describe('the alert rules', () => {
  it('the committed rules file and PrometheusRules are what npm run alerts:generate writes', async () => {
    expect(await readFile(RULES_FILE, 'utf8')).toBe(renderRulesFile());
    expect(await readFile(PROMETHEUS_RULE_FILE, 'utf8')).toBe(renderPrometheusRule());
    expect(await readFile(TEMPORAL_SERVER_RULE_FILE, 'utf8')).toBe(renderTemporalServerPrometheusRule());
  });

  it('pass promtool check rules', async () => {
    const output = await run(promtoolBinary(), ['check', 'rules', RULES_FILE]);
    expect(output).toContain(`SUCCESS: ${ALERT_RULES.length} rules found`);
  });

  it('pass their promtool unit tests', async () => {
    const output = await run(promtoolBinary(), ['test', 'rules', UNIT_TESTS]);
    expect(output).toContain('SUCCESS');
  });

  it('each alert has a unit test where it fires and one where it stays quiet', async () => {
    const { tests } = parse(await readFile(UNIT_TESTS, 'utf8')) as UnitTests;
    const cases = tests.flatMap((test) =>
      test.alert_rule_test.map((check) => ({ alert: check.alertname, fires: check.exp_alerts.length > 0 })),
    );
    for (const { alert } of ALERT_RULES) {
      expect(
        cases.filter((check) => check.alert === alert && check.fires),
        `${alert} firing`,
      ).not.toEqual([]);
      expect(
        cases.filter((check) => check.alert === alert && !check.fires),
        `${alert} quiet`,
      ).not.toEqual([]);
    }
  });

  it('the README lists every alert with its severity and runbook', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'alerts/README.md'), 'utf8');
    for (const rule of ALERT_RULES) expect(readme).toContain(`| [${rule.alert}](runbooks/${rule.alert}.md) | ${rule.severity} |`);
  });

  it('each alert has its runbook, which names the dashboard panel to confirm it on and the alert expression', async () => {
    const titles = new Map(buildDashboards().map((dashboard) => [dashboard.uid, dashboard.title]));
    for (const rule of ALERT_RULES) {
      const runbook = path.join(REPO_ROOT, runbookPath(rule.alert));
      expect(existsSync(runbook), runbook).toBe(true);
      const text = await readFile(runbook, 'utf8');
      expect(text, runbook).toContain(`# ${rule.alert}`);
      expect(text, runbook).toContain(`**${titles.get(rule.panel.dashboard)}** › **${rule.panel.title}**`);
      expect(text, runbook).toContain(rule.expr);
    }
  });
});
