import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { promtoolBinary } from '../../test/infra/prometheus.ts';
import { run } from '../../test/infra/proc.ts';
import { RUNBOOK_BASE_URL } from '../../alerts/src/generate-rules.ts';
import { OPERATOR_CHART, only, template } from './support/helm.ts';

const UNIT_TESTS = path.join(import.meta.dirname, 'operator-rules.test.yaml');

interface UnitTests {
  tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}

describe("the shop-operator chart's PrometheusRule", () => {
  let dir: string;
  let rulesFile: string;
  let alerts: string[];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'operator-rules-'));
    const objects = await template(OPERATOR_CHART, {
      name: 'shop-operator',
      namespace: 'shop-system',
      values: { prometheusRule: { enabled: true, labels: { release: 'prometheus' } } },
    });
    const [rule] = only(objects, 'PrometheusRule') as unknown as Array<{
      metadata: { labels: Record<string, string> };
      spec: { groups: Array<{ rules: Array<{ alert: string }> }> };
    }>;
    expect(rule?.metadata.labels).toMatchObject({ release: 'prometheus' });
    alerts = rule?.spec.groups.flatMap((group) => group.rules.map((candidate) => candidate.alert)) ?? [];
    rulesFile = path.join(dir, 'operator.rules.yaml');
    await writeFile(rulesFile, stringify({ groups: rule?.spec.groups }));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is not rendered unless prometheusRule.enabled', async () => {
    expect(only(await template(OPERATOR_CHART, { name: 'shop-operator', namespace: 'shop-system' }), 'PrometheusRule')).toEqual([]);
  });

  it('alerts on reconcile errors, Shops not Ready and a lost leader, and passes promtool check rules', async () => {
    expect(alerts).toEqual(['ShopOperatorReconcileErrors', 'ShopsNotReady', 'ShopOperatorLeaderLost']);
    expect(await run(promtoolBinary(), ['check', 'rules', rulesFile])).toContain(`SUCCESS: ${alerts.length} rules found`);
  });

  it('links its runbooks under runbookBaseUrl, or under the placeholder the Shop rules are generated with', async () => {
    const runbookUrls = async (values: Record<string, unknown>) => {
      const [rule] = only(
        await template(OPERATOR_CHART, { name: 'op', namespace: 'ns', values: { prometheusRule: { enabled: true }, ...values } }),
        'PrometheusRule',
      ) as unknown as Array<{
        spec: { groups: Array<{ rules: Array<{ annotations: { runbook_url: string } }> }> };
      }>;
      return rule?.spec.groups.flatMap((group) => group.rules.map((candidate) => candidate.annotations.runbook_url)) ?? [];
    };
    const anchors = ['shopoperatorreconcileerrors', 'shopsnotready', 'shopoperatorleaderlost'];
    expect(await runbookUrls({})).toEqual(anchors.map((anchor) => `${RUNBOOK_BASE_URL}docs/operator.md#${anchor}`));
    expect(await runbookUrls({ runbookBaseUrl: 'https://github.com/acme/shop/blob/v1' })).toEqual(
      anchors.map((anchor) => `https://github.com/acme/shop/blob/v1/docs/operator.md#${anchor}`),
    );
  });

  it('passes its promtool unit tests, with a firing and a quiet case per alert', async () => {
    const unitTests = parse(await readFile(UNIT_TESTS, 'utf8')) as UnitTests;
    const checks = unitTests.tests.flatMap((test) => test.alert_rule_test);
    for (const alert of alerts) {
      expect(
        checks.some((check) => check.alertname === alert && check.exp_alerts.length > 0),
        `${alert} firing`,
      ).toBe(true);
      expect(
        checks.some((check) => check.alertname === alert && check.exp_alerts.length === 0),
        `${alert} quiet`,
      ).toBe(true);
    }
    const testsFile = path.join(dir, 'operator.rules.test.yaml');
    await writeFile(testsFile, stringify({ rule_files: [rulesFile], ...unitTests }));
    expect(await run(promtoolBinary(), ['test', 'rules', testsFile])).toContain('SUCCESS');
  });
});
