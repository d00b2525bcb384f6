// Pruning, Job retention and what rolls the pods, with the real renderer: its content-hashed ConfigMap
// and its secretKeyRef variables are what these tests are about.
import { renderShop, type ShopStatus } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/wait.ts';
import type { RunningOperator } from '../src/operator.ts';
import { completeJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest, updateShop } from './support/shops.ts';
import { expectStatus, startTestCluster, type TestCluster } from './support/test-cluster.ts';

const JOB_HISTORY_LIMIT = 2;

let cluster: TestCluster;
let operator: RunningOperator;

beforeAll(async () => {
  cluster = await startTestCluster();
  operator = await runOperator(cluster, { render: renderShop, jobHistoryLimit: JOB_HISTORY_LIMIT });
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await cluster?.dispose();
});

interface Stored {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    uid: string;
    generation?: number;
    creationTimestamp: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string }>;
  };
  spec?: {
    replicas?: number;
    selector?: unknown;
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: { containers: Array<{ envFrom?: Array<{ configMapRef?: { name: string } }> }> };
    };
  };
}

const SHOP_SELECTOR = encodeURIComponent('app.kubernetes.io/instance=shop');
const paths = {
  jobs: (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs`,
  deployment: (ns: string, name: string) => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`,
  replicaSets: (ns: string) => `/apis/apps/v1/namespaces/${ns}/replicasets`,
  configMaps: (ns: string) => `/api/v1/namespaces/${ns}/configmaps`,
  secret: (ns: string, name: string) => `/api/v1/namespaces/${ns}/secrets/${name}`,
  networkPolicies: (ns: string) => `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`,
};

async function list(path: string): Promise<Stored[]> {
  const reply = await cluster.kube<{ items: Stored[] }>('GET', `${path}?labelSelector=${SHOP_SELECTOR}`);
  expectStatus(reply, 200);
  return reply.body.items;
}

async function read(path: string): Promise<Stored> {
  const reply = await cluster.kube<Stored>('GET', path);
  expectStatus(reply, 200);
  return reply.body;
}

/** GET, change, PUT back (the test client speaks JSON only, which PATCH does not take). */
async function change<T>(path: string, edit: (object: T) => void): Promise<void> {
  const object = (await cluster.kube<T>('GET', path)).body;
  edit(object);
  expectStatus(await cluster.kube('PUT', path, object), 200);
}

const setSecretKey = (ns: string, name: string, key: string, value: string) =>
  change<{ data: Record<string, string> }>(
    paths.secret(ns, name),
    (secret) => void (secret.data[key] = Buffer.from(value).toString('base64')),
  );

const names = (objects: readonly Stored[]) => objects.map((object) => object.metadata.name).sort();
const configMapOf = (workload: Stored) => workload.spec?.template?.spec.containers[0]?.envFrom?.[0]?.configMapRef?.name;
const secretsHashOf = (deployment: Stored) => deployment.spec?.template?.metadata?.annotations?.['shop.dev/secrets-hash'];

function statusOf(ns: string, expected: Record<string, unknown>): Promise<ShopStatus> {
  return eventually(async () => {
    const { status } = await readShop(cluster.kube, ns, 'shop');
    expect(status).toMatchObject(expected);
    return status as ShopStatus;
  });
}

/** Plays the Job and Deployment controllers until the Shop is Ready at `tag`: its migration Job completes, each Deployment becomes available. */
async function deployReady(ns: string, tag: string): Promise<void> {
  const job = await eventually(async () => {
    const found = (await list(paths.jobs(ns))).find((candidate) => candidate.metadata.annotations?.['shop.dev/version'] === tag);
    expect(found).toBeDefined();
    return found as Stored;
  });
  await completeJob(cluster.kube, ns, job.metadata.name);
  await rollOut(ns, (deployment) => deployment.metadata.annotations?.['shop.dev/version'] === tag);
  await statusOf(ns, { phase: 'Ready', migratedVersion: tag });
}

/** Plays the Deployment controller: each Deployment becomes available once the operator applied the template `isCurrent` looks for. */
async function rollOut(ns: string, isCurrent: (deployment: Stored) => boolean): Promise<void> {
  for (const component of ['api', 'worker', 'consumer']) {
    const name = `shop-${component}`;
    await eventually(async () => expect(isCurrent(await read(paths.deployment(ns, name)))).toBe(true));
    await markDeploymentAvailable(cluster.kube, ns, name);
  }
}

async function readyShop(prefix: string, spec: Parameters<typeof shopManifest>[2] = {}): Promise<string> {
  const ns = await cluster.namespace(prefix);
  await createReferencedSecrets(cluster.kube, ns);
  await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0', spec));
  await deployReady(ns, '1.0.0');
  return ns;
}

describe('pruning', () => {
  it('deletes the objects of a feature turned off, and leaves objects with the Shop labels that the Shop does not own', async () => {
    const ns = await readyShop('turned-off', { monitoring: { dashboards: { enabled: true } } });
    const dashboards = async () => names(await list(paths.configMaps(ns))).filter((name) => name.startsWith('shop-dashboard-'));
    expect(await dashboards()).toHaveLength(6);

    const labels = { 'app.kubernetes.io/managed-by': 'shop-operator', 'app.kubernetes.io/instance': 'shop' };
    const create = async (body: unknown) => {
      const reply = await cluster.kube<Stored>('POST', paths.configMaps(ns), body);
      expectStatus(reply, 201);
      return reply.body;
    };
    const holder = await create({ metadata: { name: 'holder' } });
    await create({ metadata: { name: 'shop-dashboard-unowned', labels } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'holder', uid: holder.metadata.uid }];
    await create({ metadata: { name: 'shop-dashboard-owned-by-another', labels, ownerReferences } });

    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.monitoring = { dashboards: { enabled: false } }));
    await eventually(async () => expect(await dashboards()).toEqual(['shop-dashboard-owned-by-another', 'shop-dashboard-unowned']));
    await statusOf(ns, { phase: 'Ready', observedGeneration: 2 });
    // Everything the Shop renders is still there.
    const configMap = configMapOf(await read(paths.deployment(ns, 'shop-api')));
    expect(names(await list(paths.configMaps(ns))).filter((name) => name.startsWith('shop-config-'))).toEqual([configMap]);
  });

  it('creates the NetworkPolicies of spec.networkPolicy, owned by the Shop, applies a changed source, and deletes them when it is turned off', async () => {
    const monitoring = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
    const ns = await readyShop('network-policy', { networkPolicy: { enabled: true, metricsFrom: [monitoring] } });
    type Policy = Stored & { spec: { ingress: Array<{ from?: unknown[] }> } };
    const policies = async () => (await list(paths.networkPolicies(ns))) as Policy[];
    const created = await policies();
    expect(names(created)).toEqual(['shop-api', 'shop-consumer', 'shop-default-deny', 'shop-worker']);
    const { uid } = (await readShop(cluster.kube, ns, 'shop')).metadata;
    for (const policy of created)
      expect(policy.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Shop', name: 'shop', uid })]);
    expect(created.find((policy) => policy.metadata.name === 'shop-worker')?.spec.ingress[0]?.from).toEqual([monitoring]);

    // Another source: applied in place.
    const prometheus = { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } };
    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.networkPolicy = { enabled: true, metricsFrom: [prometheus] }));
    await eventually(async () =>
      expect((await policies()).find((policy) => policy.metadata.name === 'shop-consumer')?.spec.ingress[0]?.from).toEqual([prometheus]),
    );

    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.networkPolicy = { enabled: false }));
    await statusOf(ns, { phase: 'Ready', observedGeneration: 3 });
    await eventually(async () => expect(await policies()).toEqual([]));
  });

  it(`keeps the newest ${JOB_HISTORY_LIMIT} migration Jobs and deletes the older ones`, async () => {
    const ns = await readyShop('jobs');
    for (const tag of ['1.1.0', '1.2.0', '1.3.0']) {
      // Jobs are ordered by creationTimestamp, in whole seconds: the next one is created in a later second.
      const newest = Math.max(...(await list(paths.jobs(ns))).map((job) => Date.parse(job.metadata.creationTimestamp)));
      await eventually(() => expect(Date.now()).toBeGreaterThanOrEqual(newest + 1000), { intervalMs: 100 });
      await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.image.tag = tag));
      await deployReady(ns, tag);
    }
    await eventually(async () => {
      const versions = (await list(paths.jobs(ns))).map((job) => job.metadata.annotations?.['shop.dev/version']);
      expect(versions.sort()).toEqual(['1.2.0', '1.3.0']);
    });
  });
});

describe('referenced Secrets', () => {
  it('roll the pods when a value the pods read changes, and not for another Secret or another key', async () => {
    const ns = await readyShop('secrets');
    const api = () => read(paths.deployment(ns, 'shop-api'));
    const before = await api();
    expect(secretsHashOf(before)).toMatch(/^[0-9a-f]{64}$/);

    expectStatus(
      await cluster.kube('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'unrelated' }, stringData: { url: 'a' } }),
      201,
    );
    await setSecretKey(ns, 'unrelated', 'url', 'b');
    await setSecretKey(ns, 'shop-db', 'unread', 'x');
    // A pass after those changes, seen by its effect: it applies the new replicas, with the same template.
    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.api = { replicas: 3 }));
    await eventually(async () => expect((await api()).spec?.replicas).toBe(3));
    expect((await api()).spec?.template).toEqual(before.spec?.template);

    // Nothing but the Secret changes: its watch brings the pass.
    await setSecretKey(ns, 'shop-db', 'url', 'postgres://elsewhere.example:5432/shop');
    const rolled = await eventually(async () => {
      const after = await api();
      expect(secretsHashOf(after)).not.toBe(secretsHashOf(before));
      return after;
    });
    expect(rolled.metadata.generation).toBeGreaterThan(before.metadata.generation ?? 0);
    await statusOf(ns, { phase: 'Deploying' });
  });
});

describe('referenced Secrets per component', () => {
  it('roll only the components that read the changed value: the search-only key the api alone', async () => {
    const ns = await cluster.namespace('component-secrets');
    await createReferencedSecrets(cluster.kube, ns);
    expectStatus(
      await cluster.kube('POST', `/api/v1/namespaces/${ns}/secrets`, {
        metadata: { name: 'shop-search' },
        stringData: { 'search-only': 'a', admin: 'a' },
      }),
      201,
    );
    const shop = shopManifest('shop', '1.0.0');
    Object.assign(shop.spec.secrets, {
      storefrontSearchOnlyKey: { name: 'shop-search', key: 'search-only' },
      adminSearchApiKey: { name: 'shop-search', key: 'admin' },
    });
    await createShop(cluster.kube, ns, shop);
    await deployReady(ns, '1.0.0');
    const hashes = async () =>
      Object.fromEntries(
        await Promise.all(
          ['api', 'worker', 'consumer'].map(async (component) => [
            component,
            secretsHashOf(await read(paths.deployment(ns, `shop-${component}`))),
          ]),
        ),
      );
    const before = await hashes();

    // Read by the api alone.
    await setSecretKey(ns, 'shop-search', 'search-only', 'b');
    await eventually(async () => expect((await hashes()).api).not.toBe(before.api));
    await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
    await statusOf(ns, { phase: 'Ready' });
    expect({ ...(await hashes()), api: before.api }).toEqual(before);

    // Read by the api and the consumer (its search indexing), not the worker.
    const middle = await hashes();
    await setSecretKey(ns, 'shop-search', 'admin', 'b');
    await eventually(async () => expect((await hashes()).api).not.toBe(middle.api));
    await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
    await eventually(async () => expect((await hashes()).consumer).not.toBe(middle.consumer));
    await markDeploymentAvailable(cluster.kube, ns, 'shop-consumer');
    await statusOf(ns, { phase: 'Ready' });
    // The pass that rolled the consumer applied the worker too, with the hash it had from the start.
    expect((await hashes()).worker).toBe(before.worker);
  });
});

describe('the ConfigMap', () => {
  it('gets a new name with new content; the old one stays while the old ReplicaSet still runs a pod, then is pruned', async () => {
    const ns = await readyShop('config');
    const oldApi = await read(paths.deployment(ns, 'shop-api'));
    const oldName = configMapOf(oldApi);
    expect(oldName).toMatch(/^shop-config-[0-9a-f]{10}$/);

    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.config = { LOG_LEVEL: 'debug' }));
    const newApi = await eventually(async () => {
      const api = await read(paths.deployment(ns, 'shop-api'));
      expect(configMapOf(api)).not.toBe(oldName);
      return api;
    });
    const newName = configMapOf(newApi);
    expect(newName).toMatch(/^shop-config-[0-9a-f]{10}$/);

    // Mid-rollout: the Deployment controller keeps the old template's pods until the new ones are
    // available (none is taken down first), so a restarting old pod still finds its config.
    await eventually(async () => {
      const live = (await list(paths.replicaSets(ns))).filter((replicaSet) => (replicaSet.spec?.replicas ?? 0) > 0).map(configMapOf);
      expect(live).toContain(oldName);
    });
    expect(names(await list(paths.configMaps(ns)))).toEqual([oldName, newName].sort());

    // The rollout ends: the old ReplicaSet is scaled to 0 (and kept, as revision history), and the pass that finds the Shop Ready prunes the old config.
    await rollOut(ns, (deployment) => configMapOf(deployment) === newName);
    await statusOf(ns, { phase: 'Ready', observedGeneration: 2 });
    await eventually(async () => expect(names(await list(paths.configMaps(ns)))).toEqual([newName]));
  });
});
