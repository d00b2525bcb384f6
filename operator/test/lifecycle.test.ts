import type { ShopStatus } from '@shop/cdk8s';
import { totalmem } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heapFlagsToAdd } from '../src/heap.ts';
import type { LeaseTimings } from '../src/leader-election.ts';
import type { RunningOperator } from '../src/operator.ts';
import { spawnOperator } from './support/child-operator.ts';
import { eventually } from '../../test/support/wait.ts';
import { completeJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { metricValue, runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest } from './support/shops.ts';
import { startTestCluster, type TestCluster } from './support/test-cluster.ts';

let cluster: TestCluster;
const running: RunningOperator[] = [];

beforeAll(async () => {
  cluster = await startTestCluster();
}, 180_000);

afterAll(async () => {
  await Promise.all(running.map((operator) => operator.stop()));
  await cluster?.dispose();
});

/** Short enough for tests: a follower takes an unreleased Lease 2 s after its last renewal. */
const FAST_LEASE: LeaseTimings = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 };
const LEASE_NAME = 'shop-operator';

async function candidate(ns: string, identity: string): Promise<RunningOperator> {
  const operator = await runOperator(cluster, {
    namespace: ns,
    identity,
    leaderElection: { namespace: ns, name: LEASE_NAME, timings: FAST_LEASE },
  });
  running.push(operator);
  return operator;
}

async function leaseHolder(ns: string): Promise<string | undefined> {
  const { body } = await cluster.kube<{ spec?: { holderIdentity?: string } }>(
    'GET',
    `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${LEASE_NAME}`,
  );
  return body.spec?.holderIdentity;
}

/**
 * Writes `holder` into the Lease as another candidate would, again when the operator renewed it between
 * the read and the write (409); answers the resourceVersion the write left.
 */
async function takeLease(leasePath: string, holder: string): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const { body: lease } = await cluster.kube<{ metadata: { resourceVersion: string }; spec: Record<string, unknown> }>('GET', leasePath);
    const renewTime = new Date().toISOString().replace('Z', '000Z');
    const taken = await cluster.kube<{ metadata: { resourceVersion: string } }>('PUT', leasePath, {
      ...lease,
      spec: { ...lease.spec, holderIdentity: holder, leaseDurationSeconds: 60, renewTime },
    });
    if (taken.status === 200) return taken.body.metadata.resourceVersion;
    if (taken.status !== 409 || attempt === 5) throw new Error(`taking the Lease answered ${taken.status}`);
  }
}

/** Which instance recorded each Event about the Shop (the API server records Events of its own in the namespace). */
async function eventReporters(ns: string): Promise<Record<string, string>> {
  const selector = encodeURIComponent('involvedObject.kind=Shop,involvedObject.name=shop');
  const { body } = await cluster.kube<{ items: Array<{ reason: string; reportingInstance: string }> }>(
    'GET',
    `/api/v1/namespaces/${ns}/events?fieldSelector=${selector}`,
  );
  return Object.fromEntries(body.items.map((event) => [event.reason, event.reportingInstance]));
}

function statusOf(ns: string, expected: Record<string, unknown>, timeoutMs?: number): Promise<ShopStatus | undefined> {
  return eventually(
    async () => {
      const { status } = await readShop(cluster.kube, ns, 'shop');
      expect(status).toMatchObject(expected);
      return status;
    },
    { timeoutMs },
  );
}

const jobExists = (ns: string) =>
  eventually(async () => expect((await cluster.kube('GET', `/apis/batch/v1/namespaces/${ns}/jobs/shop-migrate-1-0-0`)).status).toBe(200));

describe('leader election', () => {
  it('lets only the leader reconcile, and the follower take over as soon as the leader stops', async () => {
    const ns = await cluster.namespace('election');
    const first = await candidate(ns, 'first');
    await eventually(async () => expect(first.isLeader()).toBe(true));
    const second = await candidate(ns, 'second');
    await createReferencedSecrets(cluster.kube, ns);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0'));
    await jobExists(ns);
    await statusOf(ns, { phase: 'Migrating' });

    expect(await leaseHolder(ns)).toBe('first');
    expect(second.isLeader()).toBe(false);
    expect(await metricValue(second, 'shop_operator_leader')).toBe(0);
    expect(await metricValue(second, 'shop_operator_reconcile_total{result="success"}')).toBe(0);
    expect(await metricValue(first, 'shop_operator_leader')).toBe(1);
    expect((await fetch(`http://127.0.0.1:${second.metricsPort}/healthz`)).status).toBe(200);
    // A pass records its Events after writing the status: the status can be seen first.
    await eventually(async () => expect(await eventReporters(ns)).toEqual({ Migrating: 'first', KeysCurrent: 'first' }));

    await first.stop();
    // Released, the Lease is taken well before it would have expired.
    await eventually(async () => expect(second.isLeader()).toBe(true), { timeoutMs: FAST_LEASE.leaseDurationMs - 500 });
    expect(await leaseHolder(ns)).toBe('second');
    await completeJob(cluster.kube, ns, 'shop-migrate-1-0-0');
    await statusOf(ns, { phase: 'Deploying', migratedVersion: '1.0.0' });
    await eventually(async () =>
      expect(await eventReporters(ns)).toEqual({
        Migrating: 'first',
        KeysCurrent: 'first',
        MigrationsApplied: 'second',
        Deploying: 'second',
      }),
    );
  });
});

describe('the operator process', () => {
  const processEnv = (ns: string, podName: string) => ({
    KUBECONFIG: cluster.server.kubeconfigPath(),
    WATCH_NAMESPACE: ns,
    METRICS_PORT: '0',
    LEASE_NAMESPACE: ns,
    LEASE_NAME,
    LEASE_DURATION_SECONDS: '3',
    LEASE_RENEW_DEADLINE_SECONDS: '2',
    LEASE_RETRY_PERIOD_SECONDS: '1',
    POD_NAME: podName,
  });

  it('killed in the middle of a pass, is replaced by one that takes the expired Lease and converges', async () => {
    const ns = await cluster.namespace('killed');
    const doomed = spawnOperator({ ...processEnv(ns, 'doomed'), TEST_FREEZE_AFTER_STEP: 'api' });
    try {
      await createReferencedSecrets(cluster.kube, ns);
      await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0'));
      await jobExists(ns);
      await completeJob(cluster.kube, ns, 'shop-migrate-1-0-0');
      await doomed.waitForLine('"frozen"');
    } finally {
      doomed.process.kill('SIGKILL');
    }
    await doomed.exited();
    // Left behind: the api applied, but the status of that pass never written.
    expect((await cluster.kube('GET', `/apis/apps/v1/namespaces/${ns}/deployments/shop-api`)).status).toBe(200);
    const { status } = await readShop(cluster.kube, ns, 'shop');
    expect(status).toMatchObject({ phase: 'Migrating' });
    expect(status?.migratedVersion).toBeUndefined();
    expect(await leaseHolder(ns)).toBe('doomed');

    await candidate(ns, 'successor');
    await statusOf(ns, { phase: 'Deploying', migratedVersion: '1.0.0' }, 10_000);
    expect(await leaseHolder(ns)).toBe('successor');
    await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
    await eventually(async () =>
      expect((await cluster.kube('GET', `/apis/apps/v1/namespaces/${ns}/deployments/shop-worker`)).status).toBe(200),
    );
    await markDeploymentAvailable(cluster.kube, ns, 'shop-worker');
    await eventually(async () =>
      expect((await cluster.kube('GET', `/apis/apps/v1/namespaces/${ns}/deployments/shop-consumer`)).status).toBe(200),
    );
    await markDeploymentAvailable(cluster.kube, ns, 'shop-consumer');
    await statusOf(ns, { phase: 'Ready', observedGeneration: 1 });
  });

  it('on SIGTERM stops, releases the Lease and exits 0', async () => {
    const ns = await cluster.namespace('sigterm');
    const operator = spawnOperator(processEnv(ns, 'terminated'));
    await eventually(async () => expect(await leaseHolder(ns)).toBe('terminated'), { timeoutMs: 20_000 });
    // Started again in place with the container's heap, unless it runs in a container already.
    const started = JSON.parse(await operator.waitForLine('"started"')) as { nodeFlags: string; heapLimitMb: number };
    const flags = heapFlagsToAdd({
      execArgv: [],
      nodeOptions: undefined,
      constrainedMemory: process.constrainedMemory(),
      totalMemory: totalmem(),
    });
    expect(started.nodeFlags).toBe(flags.join(' '));
    if (flags.length > 0) expect(started.heapLimitMb).toBeLessThan(300);
    operator.process.kill('SIGTERM');
    const { code } = await operator.exited();
    expect(code).toBe(0);
    expect(await leaseHolder(ns)).toBeUndefined();
    expect(await operator.waitForLine('"stopped"')).toContain('"level":"INFO"');
  });

  it('exits 1 once another holder has the Lease, and writes nothing more', async () => {
    const ns = await cluster.namespace('usurped');
    const operator = spawnOperator(processEnv(ns, 'usurped'));
    await createReferencedSecrets(cluster.kube, ns);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0'));
    await statusOf(ns, { phase: 'Migrating' }, 20_000);
    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${LEASE_NAME}`;
    const taken = await takeLease(leasePath, 'usurper');
    const { code } = await operator.exited();
    expect(code).toBe(1);
    expect(await operator.waitForLine('lost the leader Lease')).toContain('"holder":"usurper"');
    // Neither renewed nor released: the Lease is as the new holder wrote it.
    const { body: after } = await cluster.kube<{ metadata: { resourceVersion: string } }>('GET', leasePath);
    expect(after.metadata.resourceVersion).toBe(taken);
  });

  it('with a bad variable prints one line naming it and exits 78', async () => {
    const operator = spawnOperator({ KUBECONFIG: cluster.server.kubeconfigPath(), METRICS_PORT: 'eighty', LEADER_ELECTION: 'false' });
    const { code, stderr } = await operator.exited();
    expect(code).toBe(78);
    expect(stderr).toBe('config error: METRICS_PORT: must be a whole number from 0 to 65535 (got "eighty")\n');
  });
});
