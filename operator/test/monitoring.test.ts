import type { ShopStatus } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusOperatorCrdFile } from '../../test/infra/prometheus.ts';
import { eventually } from '../../test/support/wait.ts';
import type { RunningOperator } from '../src/operator.ts';
import { completeJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { metricValue, runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest, updateShop } from './support/shops.ts';
import { installCrd, startTestCluster, type TestCluster } from './support/test-cluster.ts';

let cluster: TestCluster;
let operator: RunningOperator;
/** As the chart's runbookBaseUrl sets it: the provisioned rules must link their runbooks there. */
const RUNBOOK_BASE_URL = 'https://git.example.com/acme/shop/-/blob/v1.2.0/';

beforeAll(async () => {
  cluster = await startTestCluster();
  operator = await runOperator(cluster, { runbookBaseUrl: RUNBOOK_BASE_URL });
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await cluster?.dispose();
});

interface Stored {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ kind: string; name: string }>;
  };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

const DASHBOARD_COUNT = 6;
const paths = {
  configMaps: (ns: string) => `/api/v1/namespaces/${ns}/configmaps?labelSelector=${encodeURIComponent('grafana_dashboard=1')}`,
  prometheusRule: (ns: string, name: string) => `/apis/monitoring.coreos.com/v1/namespaces/${ns}/prometheusrules/${name}`,
  podMonitor: (ns: string, name: string) => `/apis/monitoring.coreos.com/v1/namespaces/${ns}/podmonitors/${name}`,
};

const ALL_ON = {
  dashboards: { enabled: true, labels: { team: 'sre' }, folder: 'Shops' },
  alerts: { enabled: true, exclude: ['ApiLatencyHigh'], labels: { release: 'prometheus' } },
  podMonitors: { enabled: true, labels: { release: 'prometheus' } },
};

async function get(path: string): Promise<{ status: number; body: Stored }> {
  return cluster.kube<Stored>('GET', path);
}

async function dashboardConfigMaps(ns: string): Promise<Stored[]> {
  const { body } = await cluster.kube<{ items: Stored[] }>('GET', paths.configMaps(ns));
  return body.items;
}

function monitoringCondition(ns: string, expected: Record<string, unknown>): Promise<ShopStatus> {
  return eventually(async () => {
    const { status } = await readShop(cluster.kube, ns, 'shop');
    expect(status?.conditions?.find((condition) => condition.type === 'MonitoringProvisioned')).toMatchObject(expected);
    return status as ShopStatus;
  });
}

/** Plays the Job and Deployment controllers until the Shop is Ready. */
async function deployReady(ns: string): Promise<void> {
  await eventually(() => completeJob(cluster.kube, ns, 'shop-migrate-1-0-0'));
  for (const name of ['shop-api', 'shop-worker', 'shop-consumer']) await eventually(() => markDeploymentAvailable(cluster.kube, ns, name));
  await eventually(async () => expect((await readShop(cluster.kube, ns, 'shop')).status?.phase).toBe('Ready'));
}

async function newShop(prefix: string): Promise<string> {
  const ns = await cluster.namespace(prefix);
  await createReferencedSecrets(cluster.kube, ns);
  await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0', { monitoring: ALL_ON }));
  return ns;
}

// One cluster, first without the Prometheus Operator's CRDs, then with them: the tests run in order.
/** The namespace of the Shop created before the CRDs were installed. */
let waitingForCrds: string;

describe('without the Prometheus Operator CRDs', () => {
  it('the Shop becomes Ready, gets its dashboards, and reports MonitoringProvisioned False with CRDNotInstalled', async () => {
    const ns = await newShop('no-crds');
    waitingForCrds = ns;
    await deployReady(ns);
    const status = await monitoringCondition(ns, { status: 'False', reason: 'CRDNotInstalled' });
    expect(status.phase).toBe('Ready');
    const message = status.conditions?.find((condition) => condition.type === 'MonitoringProvisioned')?.message;
    expect(message).toContain('PrometheusRule shop-alerts');
    expect(message).toContain('PodMonitor shop');
    expect(message).toContain(`provisioned: ${DASHBOARD_COUNT} dashboard ConfigMaps`);

    const configMaps = await dashboardConfigMaps(ns);
    expect(configMaps).toHaveLength(DASHBOARD_COUNT);
    for (const configMap of configMaps) {
      expect(configMap.metadata.name).toMatch(/^shop-dashboard-/);
      expect(configMap.metadata.labels).toMatchObject({
        grafana_dashboard: '1',
        team: 'sre',
        'app.kubernetes.io/managed-by': 'shop-operator',
      });
      expect(configMap.metadata.annotations).toMatchObject({ grafana_folder: 'Shops' });
      expect(configMap.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Shop', name: 'shop' })]);
      const [json] = Object.values(configMap.data ?? {});
      expect(JSON.parse(json ?? '{}')).toMatchObject({ title: expect.stringContaining(`(${ns}/shop)`) });
    }
  });
});

describe('with the Prometheus Operator CRDs', () => {
  beforeAll(async () => {
    for (const plural of ['prometheusrules', 'podmonitors']) await installCrd(cluster.kube, prometheusOperatorCrdFile(plural));
  }, 60_000);

  it('a Shop that waited for them gets its PrometheusRule and PodMonitor at its next pass', async () => {
    const ns = waitingForCrds;
    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.metadata = { ...shop.metadata, labels: { touched: 'yes' } }));
    await monitoringCondition(ns, { status: 'True', reason: 'Provisioned' });
    expect((await get(paths.prometheusRule(ns, 'shop-alerts'))).status).toBe(200);
    expect((await get(paths.podMonitor(ns, 'shop'))).status).toBe(200);
  });

  it('provisions a PrometheusRule scoped to the Shop and a PodMonitor that adds its shop label, both accepted by their CRDs', async () => {
    const ns = await newShop('crds');
    await deployReady(ns);
    const status = await monitoringCondition(ns, { status: 'True', reason: 'Provisioned' });
    expect(status.phase).toBe('Ready');

    const rule = await get(paths.prometheusRule(ns, 'shop-alerts'));
    expect(rule.status).toBe(200);
    expect(rule.body.metadata.labels).toMatchObject({ release: 'prometheus', 'app.kubernetes.io/instance': 'shop' });
    expect(rule.body.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Shop', name: 'shop' })]);
    const rules = (
      rule.body.spec as { groups: Array<{ rules: Array<{ alert: string; expr: string; annotations?: { runbook_url?: string } }> }> }
    ).groups.flatMap((group) => group.rules);
    expect(rules.map((candidate) => candidate.alert)).toContain('ApiHighErrorRate');
    for (const { alert, annotations } of rules) expect(annotations?.runbook_url).toBe(`${RUNBOOK_BASE_URL}alerts/runbooks/${alert}.md`);
    expect(rules.map((candidate) => candidate.alert)).not.toContain('ApiLatencyHigh');
    for (const { expr } of rules) expect(expr).toContain(`namespace="${ns}", shop="shop"`);

    const monitor = await get(paths.podMonitor(ns, 'shop'));
    expect(monitor.status).toBe(200);
    expect(monitor.body.metadata.labels).toMatchObject({ release: 'prometheus' });
    expect(monitor.body.spec).toMatchObject({
      selector: { matchLabels: { 'app.kubernetes.io/instance': 'shop' } },
      podMetricsEndpoints: [{ port: 'http', path: '/metrics', relabelings: [expect.objectContaining({ targetLabel: 'shop' })] }],
    });
  });

  it('a monitoring object the API server refuses is reported as ApplyRejected, the ones after it are applied, and the Shop still becomes Ready', async () => {
    const ns = await cluster.namespace('refused');
    await createReferencedSecrets(cluster.kube, ns);
    const refusedLabel = { ...ALL_ON, alerts: { enabled: true, labels: { release: 'not a valid label value!' } } };
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0', { monitoring: refusedLabel }));
    await deployReady(ns);
    const status = await monitoringCondition(ns, { status: 'False', reason: 'ApplyRejected' });
    expect(status.phase).toBe('Ready');
    expect(status.conditions?.find((condition) => condition.type === 'MonitoringProvisioned')?.message).toMatch(
      /^the API server refused 1 of \d+ monitoring objects \(the others are applied\): PrometheusRule shop-alerts: HTTP 422: /,
    );
    // Applied after the refused PrometheusRule.
    expect((await get(paths.podMonitor(ns, 'shop'))).status).toBe(200);
  });

  it('turning a part off deletes what it provisioned, and turning all off leaves the Shop Ready with nothing left', async () => {
    const ns = await newShop('turned-off');
    await deployReady(ns);
    await monitoringCondition(ns, { status: 'True', reason: 'Provisioned' });

    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.monitoring = { ...ALL_ON, alerts: { enabled: false } }));
    await eventually(async () => expect((await get(paths.prometheusRule(ns, 'shop-alerts'))).status).toBe(404));
    expect((await get(paths.podMonitor(ns, 'shop'))).status).toBe(200);
    expect(await dashboardConfigMaps(ns)).toHaveLength(DASHBOARD_COUNT);

    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.monitoring = {}));
    const status = await monitoringCondition(ns, { status: 'False', reason: 'Disabled' });
    expect(status.phase).toBe('Ready');
    expect((await get(paths.podMonitor(ns, 'shop'))).status).toBe(404);
    expect(await dashboardConfigMaps(ns)).toEqual([]);
  });

  describe('applying only what changed', () => {
    let ns: string;
    const MONITORING_OBJECTS = DASHBOARD_COUNT + 2;
    const applies = async () => ({
      applied: (await metricValue(operator, 'shop_operator_monitoring_applies_total{result="applied"}')) ?? NaN,
      unchanged: (await metricValue(operator, 'shop_operator_monitoring_applies_total{result="unchanged"}')) ?? NaN,
    });
    /** A plain update, as `kubectl edit` makes. */
    async function edit(path: string, change: (object: Stored) => void): Promise<void> {
      const { body } = await get(path);
      change(body);
      expect((await cluster.kube('PUT', path, body)).status).toBe(200);
    }
    const dashboardPath = async () => `/api/v1/namespaces/${ns}/configmaps/${(await dashboardConfigMaps(ns))[0]?.metadata.name}`;

    beforeAll(async () => {
      // An operator of this namespace alone: its metrics count this Shop's applies only.
      await operator.stop();
      ns = await cluster.namespace('changes');
      operator = await runOperator(cluster, { runbookBaseUrl: RUNBOOK_BASE_URL, namespace: ns });
      await createReferencedSecrets(cluster.kube, ns);
      await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0', { monitoring: ALL_ON }));
      await deployReady(ns);
      await monitoringCondition(ns, { status: 'True', reason: 'Provisioned' });
    }, 120_000);

    it('each object carries the hash of its content, and a pass with nothing changed applies none of them', async () => {
      for (const object of [
        ...(await dashboardConfigMaps(ns)),
        (await get(paths.prometheusRule(ns, 'shop-alerts'))).body,
        (await get(paths.podMonitor(ns, 'shop'))).body,
      ]) {
        expect(object.metadata.annotations?.['shop.dev/content-hash']).toMatch(/^[0-9a-f]{16}$/);
      }
      const before = await applies();
      expect(before.applied).toBeGreaterThanOrEqual(MONITORING_OBJECTS);
      await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.metadata = { ...shop.metadata, labels: { touched: 'yes' } }));
      await eventually(async () => expect((await applies()).unchanged).toBeGreaterThanOrEqual(before.unchanged + MONITORING_OBJECTS));
      expect((await applies()).applied).toBe(before.applied);
    });

    it('an object someone else changes is put back, alone', async () => {
      const path = await dashboardPath();
      const before = await applies();
      await edit(path, (configMap) => {
        configMap.metadata.labels = { ...configMap.metadata.labels, team: 'edited' };
        configMap.data = Object.fromEntries(Object.keys(configMap.data ?? {}).map((key) => [key, '{}']));
      });
      await eventually(async () => {
        const { body } = await get(path);
        expect(body.metadata.labels).toMatchObject({ team: 'sre' });
        expect(JSON.parse(Object.values(body.data ?? {})[0] ?? '{}')).toMatchObject({ title: expect.stringContaining(`(${ns}/shop)`) });
      });
      expect((await applies()).applied).toBe(before.applied + 1);

      await edit(
        paths.prometheusRule(ns, 'shop-alerts'),
        (rule) => void (rule.metadata.labels = { ...rule.metadata.labels, release: 'edited' }),
      );
      await eventually(async () =>
        expect((await get(paths.prometheusRule(ns, 'shop-alerts'))).body.metadata.labels).toMatchObject({ release: 'prometheus' }),
      );
      expect((await applies()).applied).toBe(before.applied + 2);
    });

    it('an object someone else deletes is created again', async () => {
      const path = await dashboardPath();
      for (const deleted of [path, paths.podMonitor(ns, 'shop')]) {
        expect((await cluster.kube('DELETE', deleted)).status).toBe(200);
        await eventually(async () => expect((await get(deleted)).status).toBe(200));
      }
    });

    it('a changed spec.monitoring applies only the object it changes', async () => {
      const before = await applies();
      const alerts = { ...ALL_ON.alerts, labels: { release: 'prometheus', team: 'payments' } };
      await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.monitoring = { ...ALL_ON, alerts }));
      await eventually(async () =>
        expect((await get(paths.prometheusRule(ns, 'shop-alerts'))).body.metadata.labels).toMatchObject({ team: 'payments' }),
      );
      await eventually(async () => expect((await applies()).unchanged).toBeGreaterThanOrEqual(before.unchanged + MONITORING_OBJECTS - 1));
      expect((await applies()).applied).toBe(before.applied + 1);
    });
  });
});
