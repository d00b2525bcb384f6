import type { RenderShop, Shop, ShopStatus } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningOperator } from '../src/operator.ts';
import { RolloutGate } from '../src/reconcile/rollout-gate.ts';
import { eventually } from '../../test/support/wait.ts';
import { metricValue, runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest, updateShop } from './support/shops.ts';
import { startTestCluster, type TestCluster } from './support/test-cluster.ts';
import { testRender } from './support/test-renderer.ts';

let cluster: TestCluster;
const running: RunningOperator[] = [];

beforeAll(async () => {
  cluster = await startTestCluster();
}, 180_000);

afterAll(async () => {
  await Promise.all(running.map((operator) => operator.stop()));
  await cluster?.dispose();
});

async function start(ns: string, options: Parameters<typeof runOperator>[1] = {}): Promise<RunningOperator> {
  const operator = await runOperator(cluster, { namespace: ns, ...options });
  running.push(operator);
  return operator;
}

async function stop(operator: RunningOperator): Promise<void> {
  await operator.stop();
  running.splice(running.indexOf(operator), 1);
}

const passes = async (operator: RunningOperator) => (await metricValue(operator, 'shop_operator_reconcile_total{result="success"}')) ?? 0;

describe('RolloutGate', () => {
  it('admits batchSize Shops per interval, a Shop it admitted again for free, and says when the next turn comes', () => {
    let now = 1_000;
    const gate = new RolloutGate({ batchSize: 2, intervalMs: 60_000 }, () => now);
    expect(gate.admit('a')).toEqual({ admitted: true });
    now += 10_000;
    expect(gate.admit('b')).toEqual({ admitted: true });
    expect(gate.admit('c')).toEqual({ admitted: false, retryAfterMs: 50_000 });
    expect(gate.admit('a')).toEqual({ admitted: true });
    now += 50_000;
    expect(gate.admit('c')).toEqual({ admitted: true });
    expect(gate.admit('d')).toEqual({ admitted: false, retryAfterMs: 10_000 });
  });
});

describe('the rollout after an operator upgrade', () => {
  /** What an upgraded operator renders differently for the same spec: a label on the ConfigMap. */
  const upgradedRender: RenderShop = (shop: Shop) => {
    const manifests = testRender(shop);
    return {
      ...manifests,
      configMap: { ...manifests.configMap, metadata: { ...manifests.configMap.metadata, labels: { render: 'upgraded' } } },
    };
  };
  const SHOPS = ['s1', 's2', 's3', 's4', 's5', 's6'];

  async function statuses(ns: string): Promise<Map<string, ShopStatus | undefined>> {
    return new Map(await Promise.all(SHOPS.map(async (name) => [name, (await readShop(cluster.kube, ns, name)).status] as const)));
  }
  /** The Shops whose ConfigMap the upgraded operator applied. */
  async function upgradedConfigMaps(ns: string): Promise<string[]> {
    const { body } = await cluster.kube<{ items: Array<{ metadata: { ownerReferences: Array<{ name: string }> } }> }>(
      'GET',
      `/api/v1/namespaces/${ns}/configmaps?labelSelector=render%3Dupgraded`,
    );
    return body.items.map((configMap) => configMap.metadata.ownerReferences[0]?.name ?? '').sort();
  }

  it('rolls a few Shops per interval of the injected clock, while a Shop whose spec changed goes at once', async () => {
    const ns = await cluster.namespace('pacing');
    await createReferencedSecrets(cluster.kube, ns);
    const before = await start(ns);
    for (const name of SHOPS) await createShop(cluster.kube, ns, shopManifest(name, '1.0.0'));
    const old = await eventually(async () => {
      const found = await statuses(ns);
      for (const status of found.values()) expect(status).toMatchObject({ phase: 'Migrating', renderHash: expect.any(String) });
      return found;
    });
    await stop(before);

    // From the real time: the Jobs' start times and deadlines are compared with it.
    let clock = Date.now();
    // A short resync brings the waiting Shops back often; the injected clock alone decides their turn.
    const upgraded = await start(ns, {
      render: upgradedRender,
      resyncMs: 200,
      rolloutPace: { batchSize: 2, intervalMs: 60_000 },
      now: () => new Date(clock),
    });
    const movedOn = async () =>
      [...(await statuses(ns))].filter(([name, status]) => status?.renderHash !== old.get(name)?.renderHash).map(([name]) => name);
    await eventually(async () => expect(await movedOn()).toHaveLength(2));
    // Every Shop has had passes since (five resyncs), and still only two moved on.
    const seen = await passes(upgraded);
    await eventually(async () => expect(await passes(upgraded)).toBeGreaterThanOrEqual(seen + 5 * SHOPS.length), { timeoutMs: 30_000 });
    const first = await movedOn();
    expect(first).toHaveLength(2);
    expect(await upgradedConfigMaps(ns)).toEqual([...first].sort());

    // A spec change is the user's: that Shop does not wait for a turn.
    const [changed] = SHOPS.filter((name) => !first.includes(name));
    if (changed === undefined) throw new Error('every Shop moved on');
    await updateShop(cluster.kube, ns, changed, (shop) => void (shop.spec.config = { LOG_LEVEL: 'debug' }));
    await eventually(async () => expect((await movedOn()).sort()).toEqual([...first, changed].sort()));

    clock += 60_000;
    await eventually(async () => expect(await movedOn()).toHaveLength(5));
    const second = await passes(upgraded);
    await eventually(async () => expect(await passes(upgraded)).toBeGreaterThanOrEqual(second + 5 * SHOPS.length), { timeoutMs: 30_000 });
    expect(await movedOn()).toHaveLength(5);
    clock += 60_000;
    await eventually(async () => expect(await movedOn()).toHaveLength(6));
    expect(await upgradedConfigMaps(ns)).toHaveLength(6);
  });
});
