import { GENERATED_KEYS, type Shop, type ShopStatus } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningOperator } from '../src/operator.ts';
import { eventually } from '../../test/support/wait.ts';
import { completeJob, failJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { metricValue, runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest, updateShop } from './support/shops.ts';
import { startTestCluster, type TestCluster } from './support/test-cluster.ts';

let cluster: TestCluster;
let operator: RunningOperator;

beforeAll(async () => {
  cluster = await startTestCluster();
  operator = await runOperator(cluster);
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await cluster?.dispose();
});

interface Owned {
  metadata: {
    uid: string;
    generation: number;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ kind: string; name: string; controller?: boolean; blockOwnerDeletion?: boolean }>;
    managedFields?: Array<{ manager: string; operation: string }>;
  };
  spec: { replicas?: number; template: { spec: { containers: Array<{ image: string }> } } };
  data?: Record<string, string>;
}

const paths = {
  job: (ns: string, name: string) => `/apis/batch/v1/namespaces/${ns}/jobs/${name}`,
  deployment: (ns: string, name: string) => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`,
  deployments: (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`,
  service: (ns: string, name: string) => `/api/v1/namespaces/${ns}/services/${name}`,
  pdb: (ns: string, name: string) => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}`,
  configMap: (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`,
  secret: (ns: string, name: string) => `/api/v1/namespaces/${ns}/secrets/${name}`,
  events: (ns: string) => `/api/v1/namespaces/${ns}/events`,
};

async function read(path: string): Promise<Owned> {
  const reply = await cluster.kube<Owned>('GET', path);
  if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status}`);
  return reply.body;
}

/**
 * The Events about the Shop. Not every Event in the namespace: the API server records its own, e.g.
 * ClusterIPNotAllocated on a Service its IP repair loop looked at before the IP was committed.
 */
async function events(ns: string): Promise<Array<{ reason: string; type: string; source: { component: string } }>> {
  const path = `${paths.events(ns)}?fieldSelector=${encodeURIComponent('involvedObject.kind=Shop,involvedObject.name=shop')}`;
  const reply = await cluster.kube<{ items: Array<{ reason: string; type: string; source: { component: string } }> }>('GET', path);
  if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status}`);
  return reply.body.items;
}

async function exists(path: string): Promise<boolean> {
  return (await cluster.kube('GET', path)).status === 200;
}

async function deploymentNames(ns: string): Promise<string[]> {
  const { body } = await cluster.kube<{ items: Array<{ metadata: { name: string } }> }>('GET', paths.deployments(ns));
  return body.items.map((item) => item.metadata.name).sort();
}

const imageOf = (object: Owned) => object.spec.template.spec.containers[0]?.image;
const conditionOf = (status: ShopStatus | undefined, type: string) => status?.conditions?.find((condition) => condition.type === type);

/** Waits until the Shop's status matches. */
function statusOf(ns: string, name: string, expected: Record<string, unknown>, timeoutMs?: number): Promise<ShopStatus> {
  return eventually(
    async () => {
      const { status } = await readShop(cluster.kube, ns, name);
      expect(status).toMatchObject(expected);
      return status as ShopStatus;
    },
    { timeoutMs },
  );
}

const condition = (type: string, status: string, reason?: string) =>
  expect.objectContaining({ type, status, ...(reason ? { reason } : {}) });

/** A namespace with the referenced Secrets and a Shop in it. */
async function newShop(prefix: string, shop: Shop = shopManifest('shop', '1.0.0')): Promise<string> {
  const ns = await cluster.namespace(prefix);
  await createReferencedSecrets(cluster.kube, ns);
  await createShop(cluster.kube, ns, shop);
  return ns;
}

/** Plays the Job and Deployment controllers until the Shop is Ready. */
async function deployReady(ns: string, tag = '1.0.0'): Promise<void> {
  await eventually(() => read(paths.job(ns, `shop-migrate-${tag.replaceAll('.', '-')}`)));
  await completeJob(cluster.kube, ns, `shop-migrate-${tag.replaceAll('.', '-')}`);
  await eventually(() => read(paths.deployment(ns, 'shop-api')));
  await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
  await eventually(async () => expect(await deploymentNames(ns)).toEqual(['shop-api', 'shop-consumer', 'shop-worker']));
  await markDeploymentAvailable(cluster.kube, ns, 'shop-worker');
  await markDeploymentAvailable(cluster.kube, ns, 'shop-consumer');
  await statusOf(ns, 'shop', { phase: 'Ready' });
}

describe('a new Shop', () => {
  it('gets its keys, its ConfigMap and the migration Job, owned by the Shop, and nothing that runs the platform yet', async () => {
    const ns = await newShop('new-shop');
    const status = await statusOf(ns, 'shop', { phase: 'Migrating', observedGeneration: 1 });
    expect(status.conditions).toEqual(
      expect.arrayContaining([
        condition('Ready', 'False', 'MigrationRunning'),
        condition('MigrationsApplied', 'False', 'MigrationRunning'),
        condition('ApiAvailable', 'False', 'MigrationRunning'),
        condition('WorkerAvailable', 'False', 'MigrationRunning'),
      ]),
    );
    expect(status.migratedVersion).toBeUndefined();

    const job = await read(paths.job(ns, 'shop-migrate-1-0-0'));
    expect(job.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Shop', name: 'shop', controller: true, blockOwnerDeletion: true }),
    ]);
    expect(job.metadata.managedFields).toEqual(
      expect.arrayContaining([expect.objectContaining({ manager: 'shop-operator', operation: 'Apply' })]),
    );
    expect(await exists(paths.configMap(ns, 'shop-config'))).toBe(true);
    const keys = await read(paths.secret(ns, 'shop-generated-keys'));
    expect(Buffer.from(Buffer.from(keys.data?.[GENERATED_KEYS.secretsMasterKey] ?? '', 'base64').toString(), 'base64')).toHaveLength(32);
    expect(Buffer.from(keys.data?.[GENERATED_KEYS.secretKey] ?? '', 'base64').length).toBeGreaterThanOrEqual(32);
    expect(await deploymentNames(ns)).toEqual([]);
  });

  it('deploys the api, and only the api, once its migration Job is complete', async () => {
    const ns = await newShop('migrated');
    await eventually(() => read(paths.job(ns, 'shop-migrate-1-0-0')));
    await completeJob(cluster.kube, ns, 'shop-migrate-1-0-0');

    const status = await statusOf(ns, 'shop', { phase: 'Deploying', migratedVersion: '1.0.0' });
    expect(status.conditions).toEqual(
      expect.arrayContaining([
        condition('MigrationsApplied', 'True', 'MigrationsComplete'),
        condition('ApiAvailable', 'False', 'RollingOut'),
        condition('ConsumerAvailable', 'False', 'ApiRollingOut'),
      ]),
    );
    expect(await deploymentNames(ns)).toEqual(['shop-api']);
    expect(await exists(paths.service(ns, 'shop-api'))).toBe(true);
    expect(await exists(paths.pdb(ns, 'shop-api'))).toBe(true);
  });

  it('gets its worker and consumer once the api is available, then turns Ready, with one Event per transition', async () => {
    const ns = await newShop('ready');
    await eventually(() => read(paths.job(ns, 'shop-migrate-1-0-0')));
    await completeJob(cluster.kube, ns, 'shop-migrate-1-0-0');
    await statusOf(ns, 'shop', {
      phase: 'Deploying',
      conditions: expect.arrayContaining([condition('ApiAvailable', 'False', 'RollingOut')]),
    });
    expect(await deploymentNames(ns)).toEqual(['shop-api']);

    await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
    await eventually(async () => expect(await deploymentNames(ns)).toEqual(['shop-api', 'shop-consumer', 'shop-worker']));
    await statusOf(ns, 'shop', {
      phase: 'Deploying',
      conditions: expect.arrayContaining([condition('ApiAvailable', 'True', 'RolledOut')]),
    });

    await markDeploymentAvailable(cluster.kube, ns, 'shop-worker');
    await markDeploymentAvailable(cluster.kube, ns, 'shop-consumer');
    const ready = await statusOf(ns, 'shop', { phase: 'Ready', observedGeneration: 1 });
    for (const type of ['Ready', 'MigrationsApplied', 'ApiAvailable', 'WorkerAvailable', 'ConsumerAvailable']) {
      expect(conditionOf(ready, type)).toMatchObject({ status: 'True', observedGeneration: 1 });
    }
    // Counted once the pass has also recorded its Events, a moment after the status is written.
    await expect.poll(() => metricValue(operator, 'shop_operator_shops{phase="Ready"}')).toBeGreaterThanOrEqual(1);
    // This Shop names no workflow engine: its worker runs no pods, and the condition says why.
    expect(conditionOf(ready, 'WorkerAvailable')?.message).toContain('workflows are off: spec.secrets.workflowHost is not set');

    // A pass records its Events after writing the status, so the last ones may still be on their way.
    const transitions = [
      'Migrating',
      'MigrationsApplied',
      'Deploying',
      'ApiAvailable',
      'WorkerAvailable',
      'ConsumerAvailable',
      'KeysCurrent',
      'Ready',
    ].sort();
    await eventually(async () => expect((await events(ns)).map((event) => event.reason).sort()).toEqual(transitions));

    // More passes (a metadata change is an event on the Shop) record no more Events: once a pass has
    // ended after all of them were there, they are still the same.
    const passes = await metricValue(operator, 'shop_operator_reconcile_total{result="success"}');
    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.metadata = { ...shop.metadata, labels: { touched: 'yes' } }));
    await eventually(async () =>
      expect(await metricValue(operator, 'shop_operator_reconcile_total{result="success"}')).toBeGreaterThan(passes ?? 0),
    );
    const recorded = await events(ns);
    expect(recorded.map((event) => event.reason).sort()).toEqual(transitions);
    expect(recorded.every((event) => event.type === 'Normal' && event.source.component === 'shop-operator')).toBe(true);
  });
});

describe('a failed migration Job', () => {
  it('puts the Shop in phase Failed with the Job reason and message, and starts no workload', async () => {
    const ns = await newShop('failed');
    await eventually(() => read(paths.job(ns, 'shop-migrate-1-0-0')));
    await failJob(cluster.kube, ns, 'shop-migrate-1-0-0', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');

    const status = await statusOf(ns, 'shop', { phase: 'Failed' });
    expect(status.message).toContain('BackoffLimitExceeded');
    expect(status.message).toContain('Job has reached the specified backoff limit');
    expect(conditionOf(status, 'Ready')).toMatchObject({ status: 'False', reason: 'MigrationFailed' });
    expect(conditionOf(status, 'WorkerAvailable')).toMatchObject({ status: 'False', reason: 'MigrationFailed' });
    expect(await deploymentNames(ns)).toEqual([]);
    // Counted once the pass has also recorded its Events, a moment after the status is written.
    await expect.poll(() => metricValue(operator, 'shop_operator_shops{phase="Failed"}')).toBeGreaterThanOrEqual(1);
    await eventually(async () =>
      expect(await events(ns)).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'Failed', type: 'Warning' })])),
    );
  });
});

describe('a Shop whose Secrets are missing', () => {
  it('waits in Pending, naming the Secret, and migrates once it exists', async () => {
    const ns = await cluster.namespace('no-secrets');
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0'));
    const status = await statusOf(ns, 'shop', { phase: 'Pending' });
    expect(status.message).toBe(
      'Secret shop-cache (spec.secrets.cacheUrl) does not exist; Secret shop-db (spec.secrets.databaseUrl) does not exist; ' +
        'Secret shop-kafka (spec.secrets.brokerAddress) does not exist',
    );
    expect(await exists(paths.job(ns, 'shop-migrate-1-0-0'))).toBe(false);

    // Nothing else changes: the Secrets' watch brings the next pass.
    await createReferencedSecrets(cluster.kube, ns);
    await statusOf(ns, 'shop', { phase: 'Migrating' });
  });
});

describe('a Ready Shop', () => {
  it('applies a replicas change, follows the new generation, and is not Ready for it until the api has rolled out', async () => {
    const ns = await newShop('replicas');
    await deployReady(ns);
    const before = await readShop(cluster.kube, ns, 'shop');

    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.api = { replicas: 5 }));
    await eventually(async () => expect((await read(paths.deployment(ns, 'shop-api'))).spec.replicas).toBe(5));
    const rolling = await statusOf(ns, 'shop', { observedGeneration: 2, phase: 'Deploying' });
    expect(conditionOf(rolling, 'Ready')).toMatchObject({ status: 'False', observedGeneration: 2 });
    // MigrationsApplied stayed True: its lastTransitionTime did not move.
    expect(conditionOf(rolling, 'MigrationsApplied')?.lastTransitionTime).toBe(
      conditionOf(before.status, 'MigrationsApplied')?.lastTransitionTime,
    );

    await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
    const ready = await statusOf(ns, 'shop', { observedGeneration: 2, phase: 'Ready' });
    expect(conditionOf(ready, 'Ready')).toMatchObject({ status: 'True', observedGeneration: 2 });
  });

  it('on an upgrade keeps the old worker and consumer until the new migrations and api are ready', async () => {
    const ns = await newShop('upgrade');
    await deployReady(ns);

    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.image.tag = '1.1.0'));
    await statusOf(ns, 'shop', { phase: 'Migrating', observedGeneration: 2, migratedVersion: '1.0.0' });
    for (const component of ['api', 'worker', 'consumer']) {
      expect(imageOf(await read(paths.deployment(ns, `shop-${component}`)))).toBe('registry.example.com/shop/platform:1.0.0');
    }

    await completeJob(cluster.kube, ns, 'shop-migrate-1-1-0');
    const upgrading = await statusOf(ns, 'shop', { phase: 'Upgrading', migratedVersion: '1.1.0' });
    expect(upgrading.message).toContain('worker 1.0.0 and consumer 1.0.0 keep running');
    expect(imageOf(await read(paths.deployment(ns, 'shop-api')))).toBe('registry.example.com/shop/platform:1.1.0');
    for (const component of ['worker', 'consumer']) {
      const deployment = await read(paths.deployment(ns, `shop-${component}`));
      expect(imageOf(deployment)).toBe('registry.example.com/shop/platform:1.0.0');
      expect(deployment.metadata.annotations?.['shop.dev/version']).toBe('1.0.0');
    }

    await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
    // The two are applied one after the other within a pass: wait for each.
    for (const component of ['worker', 'consumer']) {
      await eventually(async () =>
        expect(imageOf(await read(paths.deployment(ns, `shop-${component}`)))).toBe('registry.example.com/shop/platform:1.1.0'),
      );
    }
    await markDeploymentAvailable(cluster.kube, ns, 'shop-worker');
    await markDeploymentAvailable(cluster.kube, ns, 'shop-consumer');
    await statusOf(ns, 'shop', { phase: 'Ready', observedGeneration: 2, migratedVersion: '1.1.0' });
  });

  it('gets a deleted Deployment back', async () => {
    const ns = await newShop('deleted-child');
    await deployReady(ns);
    const before = await read(paths.deployment(ns, 'shop-worker'));

    expect((await cluster.kube('DELETE', paths.deployment(ns, 'shop-worker'))).status).toBe(200);
    const after = await eventually(() => read(paths.deployment(ns, 'shop-worker')));
    expect(after.metadata.uid).not.toBe(before.metadata.uid);
    // Recreated, it is not available yet, so neither is the Shop.
    await statusOf(ns, 'shop', {
      phase: 'Deploying',
      conditions: expect.arrayContaining([condition('WorkerAvailable', 'False', 'RollingOut')]),
    });
  });

  it('gets a deleted Service, ConfigMap and PodDisruptionBudget back without waiting for the resync', async () => {
    const ns = await newShop('deleted-watched');
    await deployReady(ns);
    // The resync is 30 min away: only a watch brings these passes.
    for (const path of [paths.service(ns, 'shop-api'), paths.configMap(ns, 'shop-config'), paths.pdb(ns, 'shop-api')]) {
      const before = await read(path);
      expect((await cluster.kube('DELETE', path)).status).toBe(200);
      await eventually(async () => expect((await read(path)).metadata.uid).not.toBe(before.metadata.uid));
    }
  });

  it('keeps its generated keys across passes and versions', async () => {
    const ns = await newShop('keys');
    await deployReady(ns);
    const keys = await read(paths.secret(ns, 'shop-generated-keys'));
    // Never garbage-collected with the Shop: losing the master key loses every stored secret.
    expect(keys.metadata.ownerReferences).toBeUndefined();

    await updateShop(cluster.kube, ns, 'shop', (shop) => void (shop.spec.image.tag = '1.1.0'));
    await statusOf(ns, 'shop', { phase: 'Migrating', observedGeneration: 2 });
    expect((await read(paths.secret(ns, 'shop-generated-keys'))).data).toEqual(keys.data);
  });
});

describe('a Shop that references its own keys', () => {
  it('gets no generated keys Secret', async () => {
    const ns = await cluster.namespace('own-keys');
    await createReferencedSecrets(cluster.kube, ns);
    await cluster.kube('POST', `/api/v1/namespaces/${ns}/secrets`, {
      metadata: { name: 'own-keys' },
      stringData: { jwt: 'j'.repeat(40), master: 'm' },
    });
    const shop = shopManifest('shop', '1.0.0');
    shop.spec.secrets.secretKey = { name: 'own-keys', key: 'jwt' };
    shop.spec.secrets.secretsMasterKey = { name: 'own-keys', key: 'master' };
    await createShop(cluster.kube, ns, shop);
    await statusOf(ns, 'shop', { phase: 'Migrating' });
    expect(await exists(paths.secret(ns, 'shop-generated-keys'))).toBe(false);
  });
});

describe('the metrics endpoint', () => {
  it('counts passes and shows the leader and the queue', async () => {
    expect(await metricValue(operator, 'shop_operator_reconcile_total{result="success"}')).toBeGreaterThan(0);
    expect(await metricValue(operator, 'shop_operator_reconcile_duration_seconds_count')).toBeGreaterThan(0);
    expect(await metricValue(operator, 'shop_operator_leader')).toBe(1);
    expect(await metricValue(operator, 'shop_operator_queue_depth')).toBeTypeOf('number');
    const health = await fetch(`http://127.0.0.1:${operator.metricsPort}/healthz`);
    expect(health.status).toBe(200);
  });

  it('counts every Shop once, in the phase of its status, and forgets a deleted one', async () => {
    const shops = async () => (await cluster.kube<{ items: Shop[] }>('GET', '/apis/shop.dev/v1alpha1/shops')).body.items;
    const counted = async () => {
      const text = await (await fetch(`http://127.0.0.1:${operator.metricsPort}/metrics`)).text();
      const lines = text.split('\n').filter((line) => line.startsWith('shop_operator_shops{'));
      return Object.fromEntries(lines.map((line) => [/phase="(\w+)"/.exec(line)?.[1], Number(line.split(' ')[1])]));
    };
    const byPhase = (items: Shop[]) =>
      items.reduce<Record<string, number>>(
        (counts, shop) => ({ ...counts, [shop.status?.phase ?? 'none']: (counts[shop.status?.phase ?? 'none'] ?? 0) + 1 }),
        {},
      );
    const ns = await newShop('counted');
    await statusOf(ns, 'shop', { phase: 'Migrating' });
    await eventually(async () => expect(await counted()).toEqual(byPhase(await shops())));

    expect((await cluster.kube('DELETE', `/apis/shop.dev/v1alpha1/namespaces/${ns}/shops/shop`)).status).toBe(200);
    await eventually(async () => {
      const remaining = await shops();
      expect(remaining.some((shop) => shop.metadata?.namespace === ns)).toBe(false);
      expect(await counted()).toEqual(byPhase(remaining));
    });
  });
});
