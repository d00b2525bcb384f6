import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderShop, type KubeObject } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { promtoolBinary } from '../../test/infra/prometheus.ts';
import { run } from '../../test/infra/proc.ts';
import { dashboardConfigMaps, FOLDER_ANNOTATION } from '../src/monitoring/dashboard-config-maps.ts';
import { podMonitor } from '../src/monitoring/pod-monitor.ts';
import { isShopRule, prometheusRule } from '../src/monitoring/prometheus-rule.ts';
import { dropsLabel, scopeSelectors } from '../src/monitoring/promql-scope.ts';
import { EXCLUDED, IMAGES } from '../../images/contents.ts';
import { DASHBOARDS_DIR, generatedDashboards, generatedRuleGroups, RULES_FILE } from '../src/monitoring/monitoring-files.ts';
import { storedShop } from './support/stored-shop.ts';

const ALERT_UNIT_TESTS = path.resolve(import.meta.dirname, '../../alerts/test/shop.rules.test.yaml');
const TEMPORAL_SERVER_RULES = path.resolve(import.meta.dirname, '../../alerts/temporal-server.prometheusrule.yaml');

interface UnitTests {
  rule_files: string[];
  tests: Array<{ name: string; alert_rule_test: Array<{ alertname: string; exp_alerts: Array<{ exp_labels: Record<string, string> }> }> }>;
}

const rulesOf = (rule: KubeObject) =>
  (rule as unknown as { spec: { groups: Array<{ name: string; rules: Array<{ alert: string; expr: string }> }> } }).spec.groups;
const alertNames = (rule: KubeObject) => rulesOf(rule).flatMap((group) => group.rules.map((candidate) => candidate.alert));

describe('scoping PromQL to one Shop', () => {
  const shop = { namespace: 'shops', shop: 'north' };

  it('adds the matchers to every selector, with or without its own, and nowhere else', () => {
    expect(
      scopeSelectors(
        'sum by (namespace, shop) (rate(http_requests_total{status=~"5.."}[5m])) / sum by (namespace, shop) (rate(http_requests_total[5m]))',
        shop,
      ),
    ).toBe(
      'sum by (namespace, shop) (rate(http_requests_total{namespace="shops", shop="north", status=~"5.."}[5m])) / sum by (namespace, shop) (rate(http_requests_total{namespace="shops", shop="north"}[5m]))',
    );
    expect(scopeSelectors('max by (namespace, shop, service) (db_pool_connections_in_use / db_pool_connections_max) > 0.8', shop)).toBe(
      'max by (namespace, shop, service) (db_pool_connections_in_use{namespace="shops", shop="north"} / db_pool_connections_max{namespace="shops", shop="north"}) > 0.8',
    );
    expect(scopeSelectors('a unless on (namespace) group_left (x) b offset 5m', shop)).toBe(
      'a{namespace="shops", shop="north"} unless on (namespace) group_left (x) b{namespace="shops", shop="north"} offset 5m',
    );
    expect(scopeSelectors('{__name__="up"} == bool 1', shop)).toBe('{namespace="shops", shop="north", __name__="up"} == bool 1');
  });

  it('tells rules that keep the shop label from those that drop it', () => {
    expect(dropsLabel('sum by (namespace, shop) (rate(x[5m]))', 'shop')).toBe(false);
    expect(dropsLabel('max(x) without (pod)', 'shop')).toBe(false);
    expect(dropsLabel('sum by (namespace, taskqueue) (x)', 'shop')).toBe(true);
    expect(dropsLabel('sum without (shop) (x)', 'shop')).toBe(true);
  });
});

describe("a Shop's PrometheusRule", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'shop-rule-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * alerts/test/shop.rules.test.yaml (its series are of Shops in namespace shops) run against `name`'s
   * PrometheusRule, each case expecting only the alerts of that Shop. Resolves with the number of
   * checks where an alert is expected to fire.
   */
  async function runAlertUnitTests(name: string): Promise<number> {
    const rule = prometheusRule(storedShop('shops', name, { monitoring: { alerts: { enabled: true } } }));
    const kept = new Set(alertNames(rule));
    const unitTests = parse(await readFile(ALERT_UNIT_TESTS, 'utf8')) as UnitTests;
    const tests = unitTests.tests
      .map((test) => ({
        ...test,
        alert_rule_test: test.alert_rule_test
          .filter((check) => kept.has(check.alertname))
          .map((check) => ({
            ...check,
            exp_alerts: check.exp_alerts.filter((alert) => alert.exp_labels.namespace === 'shops' && alert.exp_labels.shop === name),
          })),
      }))
      .filter((test) => test.alert_rule_test.length > 0);
    const rulesFile = path.join(dir, `${name}.rules.yaml`);
    const testsFile = path.join(dir, `${name}.test.yaml`);
    await writeFile(rulesFile, stringify({ groups: rulesOf(rule) }));
    await writeFile(testsFile, stringify({ ...unitTests, rule_files: [rulesFile], tests }));
    expect(await run(promtoolBinary(), ['check', 'rules', rulesFile])).toContain(`SUCCESS: ${kept.size} rules found`);
    expect(await run(promtoolBinary(), ['test', 'rules', testsFile])).toContain('SUCCESS');
    return tests.flatMap((test) => test.alert_rule_test).filter((check) => check.exp_alerts.length > 0).length;
  }

  it("keeps every rule on the Shop's own series, and leaves out the shared Temporal server's, which its own file holds", async () => {
    const rule = prometheusRule(storedShop('shops', 'north', { monitoring: { alerts: { enabled: true } } }));
    const all = generatedRuleGroups().flatMap((group) => group.rules);
    const leftOut = all.filter((candidate) => !isShopRule(candidate)).map((candidate) => candidate.alert);
    expect(leftOut).toEqual(['WorkflowTaskQueueBacklog', 'WorkflowsStuck']);
    expect(alertNames(parse(await readFile(TEMPORAL_SERVER_RULES, 'utf8')) as KubeObject)).toEqual(leftOut);
    expect(alertNames(rule)).toEqual(all.filter(isShopRule).map((candidate) => candidate.alert));
    for (const { expr } of rulesOf(rule).flatMap((group) => group.rules)) expect(expr).toContain('namespace="shops", shop="north"');
  });

  it("fires and stays quiet as the alerts' own promtool unit tests expect, for the Shop they describe", async () => {
    const kept = alertNames(prometheusRule(storedShop('shops', 'north', { monitoring: { alerts: { enabled: true } } })));
    expect(await runAlertUnitTests('north')).toBeGreaterThanOrEqual(kept.length);
    expect(await runAlertUnitTests('south')).toBeGreaterThan(0); // a case with a second Shop
  });

  it('stays quiet on the same series for a Shop they do not describe', async () => {
    expect(await runAlertUnitTests('west')).toBe(0);
  });

  it("links each runbook under the operator's RUNBOOK_BASE_URL, and as generated without it", () => {
    const shop = storedShop('shops', 'north', { monitoring: { alerts: { enabled: true } } });
    const runbooks = (rule: KubeObject) =>
      rulesOf(rule).flatMap((group) =>
        group.rules.map((candidate) => [candidate.alert, (candidate as { annotations?: Record<string, string> }).annotations?.runbook_url]),
      );
    const generated = new Map(
      generatedRuleGroups().flatMap((group) => group.rules.map((candidate) => [candidate.alert, candidate.annotations?.runbook_url])),
    );
    const kept = runbooks(prometheusRule(shop, undefined));
    expect(kept.length).toBeGreaterThan(0);
    for (const [alert, url] of kept) expect(url).toBe(generated.get(alert ?? ''));
    for (const [alert, url] of runbooks(prometheusRule(shop, 'https://git.example.com/acme/shop/-/blob/v1.2.0/'))) {
      expect(url).toBe(`https://git.example.com/acme/shop/-/blob/v1.2.0/alerts/runbooks/${alert}.md`);
    }
  });

  it('leaves out the alerts spec.monitoring.alerts.exclude names, and carries its labels', () => {
    const rule = prometheusRule(
      storedShop('shops', 'north', {
        monitoring: { alerts: { enabled: true, exclude: ['ApiLatencyHigh'], labels: { release: 'prometheus' } } },
      }),
    );
    expect(alertNames(rule)).not.toContain('ApiLatencyHigh');
    expect(alertNames(rule)).toContain('ApiHighErrorRate');
    expect(rule.metadata).toMatchObject({ name: 'north-alerts', labels: { release: 'prometheus', 'app.kubernetes.io/instance': 'north' } });
  });
});

describe("a Shop's dashboards", () => {
  const north = storedShop('shops', 'north', { monitoring: { dashboards: { enabled: true, labels: { team: 'sre' } } } });
  const south = storedShop('shops', 'south', { monitoring: { dashboards: { enabled: true, folder: 'Shops' } } });

  it('one ConfigMap per generated dashboard, labelled for the Grafana sidecar, in the folder asked for', () => {
    const configMaps = dashboardConfigMaps(north);
    expect(configMaps).toHaveLength(generatedDashboards().length);
    for (const configMap of configMaps) {
      expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1', team: 'sre' });
      expect(configMap.metadata.annotations).toEqual({ [FOLDER_ANNOTATION]: 'Shop' });
    }
    expect(dashboardConfigMaps(south)[0]?.metadata.annotations).toEqual({ [FOLDER_ANNOTATION]: 'Shops' });
  });

  it("are the Shop's own copies: a uid, file name and title of their own, opened on the Shop", () => {
    const dashboardsOf = (shop: typeof north) =>
      dashboardConfigMaps(shop).map((configMap) => {
        const [[file, json]] = Object.entries((configMap as unknown as { data: Record<string, string> }).data) as [[string, string]];
        return {
          file,
          dashboard: JSON.parse(json) as {
            uid: string;
            title: string;
            templating: { list: Array<{ name: string; current?: { value: string } }> };
          },
        };
      });
    const northern = dashboardsOf(north);
    const southern = dashboardsOf(south);
    const uids = [...northern, ...southern].map(({ dashboard }) => dashboard.uid);
    expect(new Set(uids).size).toBe(uids.length);
    expect(new Set([...northern, ...southern].map(({ file }) => file)).size).toBe(uids.length);
    for (const [index, { file, dashboard }] of northern.entries()) {
      const generated = generatedDashboards()[index];
      expect(file).toBe(`${dashboard.uid}.json`);
      expect(dashboard.uid.length).toBeLessThanOrEqual(40); // Grafana's limit
      expect(dashboard.title).toBe(`${generated?.title} (shops/north)`);
      const current = Object.fromEntries(dashboard.templating.list.map((variable) => [variable.name, variable.current?.value]));
      expect(current).toMatchObject({ namespace: 'shops', shop: 'north' });
    }
  });
});

describe("a Shop's PodMonitor", () => {
  it("selects exactly the Shop's api, worker and consumer pods, scrapes their http port, and adds the shop label", () => {
    const shop = storedShop('shops', 'north', { monitoring: { podMonitors: { enabled: true } } });
    const monitor = podMonitor(shop) as unknown as {
      spec: {
        selector: { matchLabels: Record<string, string>; matchExpressions: Array<{ key: string; operator: string; values: string[] }> };
        podMetricsEndpoints: Array<{ port: string; path: string; relabelings: Array<{ sourceLabels: string[]; targetLabel: string }> }>;
      };
    };
    const { matchLabels, matchExpressions } = monitor.spec.selector;
    const selects = (labels: Record<string, string>) =>
      Object.entries(matchLabels).every(([key, value]) => labels[key] === value) &&
      matchExpressions.every((match) => match.values.includes(labels[match.key] ?? ''));
    const manifests = renderShop(shop);
    const pods = [manifests.api.deployment, manifests.worker.deployment, manifests.consumer.deployment, manifests.migrationJob].map(
      (object) =>
        (
          object as unknown as {
            spec: {
              template: { metadata: { labels: Record<string, string> }; spec: { containers: Array<{ ports?: Array<{ name: string }> }> } };
            };
          }
        ).spec.template,
    );
    expect(pods.map((pod) => selects(pod.metadata.labels))).toEqual([true, true, true, false]);
    const [endpoint] = monitor.spec.podMetricsEndpoints;
    for (const pod of pods.slice(0, 3)) expect(pod.spec.containers[0]?.ports?.map((port) => port.name)).toContain(endpoint?.port);
    expect(selects({ ...pods[0]?.metadata.labels, 'app.kubernetes.io/instance': 'south' })).toBe(false);
    expect(endpoint?.path).toBe('/metrics');
    expect(endpoint?.relabelings).toEqual([
      expect.objectContaining({ sourceLabels: ['__meta_kubernetes_pod_label_app_kubernetes_io_instance'], targetLabel: 'shop' }),
    ]);
  });
});

describe('the operator image', () => {
  it('carries the generated dashboards and alert rules the operator reads', async () => {
    const image = IMAGES.find((candidate) => candidate.target === 'operator');
    const repository = path.resolve(import.meta.dirname, '../..');
    const files = [...(await readdir(DASHBOARDS_DIR)).map((file) => path.join(DASHBOARDS_DIR, file)), RULES_FILE].map((file) =>
      path.relative(repository, file),
    );
    expect(files).toHaveLength(generatedDashboards().length + 1);
    for (const file of files) {
      expect(
        image?.paths.some((copied) => file === copied || file.startsWith(`${copied}/`)),
        file,
      ).toBe(true);
      expect(
        EXCLUDED.some((pattern) => pattern.test(file)),
        file,
      ).toBe(false);
    }
  });
});
