// Going back to an older version: the migration Job's refusal (its termination message) stops the Shop
// with its reason and an Event until the allow-downgrade annotation lets it through; and spec.paused.
// The tests play the Job controller and the kubelet by writing Job and pod status through the API server.
import { ALLOW_DOWNGRADE_ANNOTATION, renderShop, type ShopStatus } from '@shop/cdk8s';
import { formatMigrationSummary } from '@shop/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/wait.ts';
import type { RunningOperator } from '../src/operator.ts';
import { completeJob, failJob } from '../../test/infra/workloads.ts';
import { runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest, updateShop } from './support/shops.ts';
import { startTestCluster, type TestCluster } from './support/test-cluster.ts';

let cluster: TestCluster;
let operator: RunningOperator;

beforeAll(async () => {
  cluster = await startTestCluster();
  // The real renderer: the Job's command is what the annotation changes.
  operator = await runOperator(cluster, { render: renderShop });
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await cluster?.dispose();
});

interface StoredJob {
  metadata: { uid: string };
  spec: { template: { spec: { containers: Array<{ name: string; command: string[] }> } } };
}

async function job(ns: string, name: string): Promise<StoredJob | undefined> {
  const reply = await cluster.kube<StoredJob>('GET', `/apis/batch/v1/namespaces/${ns}/jobs/${name}`);
  return reply.status === 200 ? reply.body : undefined;
}

const jobCreated = (ns: string, name: string) =>
  eventually(async () => {
    const found = await job(ns, name);
    expect(found).toBeDefined();
    return found as StoredJob;
  });

function statusOf(ns: string, expected: Record<string, unknown>): Promise<ShopStatus> {
  return eventually(async () => {
    const { status } = await readShop(cluster.kube, ns, 'shop');
    expect(status).toMatchObject(expected);
    return status as ShopStatus;
  });
}

/** The migration Job's name as the renderer gives it (a tag with dots gets a hash). */
const migrationJob = (tag: string) => renderShop(shopManifest('shop', tag)).migrationJob.metadata.name;
const [JOB_1_0, JOB_1_1] = [migrationJob('1.0.0'), migrationJob('1.1.0')];

const condition = (type: string, status: string, reason: string) => expect.objectContaining({ type, status, reason });

async function warnings(ns: string): Promise<Array<{ reason: string; message: string }>> {
  const selector = encodeURIComponent('involvedObject.kind=Shop,type=Warning');
  const reply = await cluster.kube<{ items: Array<{ reason: string; message: string }> }>(
    'GET',
    `/api/v1/namespaces/${ns}/events?fieldSelector=${selector}`,
  );
  return reply.body.items;
}

describe('a Shop moved to an older version', () => {
  it('is Failed as DowngradeRefused with an Event when its Job refuses, and migrates with the flag once annotated', async () => {
    const ns = await cluster.namespace('downgrade');
    await createReferencedSecrets(cluster.kube, ns);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.1.0'));
    await jobCreated(ns, JOB_1_1);
    await completeJob(
      cluster.kube,
      ns,
      JOB_1_1,
      formatMigrationSummary({ schemaVersion: '1.1.0', imageVersion: '1.1.0', downgradeRefused: false }),
    );
    await statusOf(ns, { migratedVersion: '1.1.0' });

    await updateShop(cluster.kube, ns, 'shop', (shop) => (shop.spec.image.tag = '1.0.0'));
    const refusing = await jobCreated(ns, JOB_1_0);
    const summary = formatMigrationSummary({ schemaVersion: '1.1.0', imageVersion: '1.0.0', downgradeRefused: true });
    await failJob(
      cluster.kube,
      ns,
      JOB_1_0,
      'PodFailurePolicy',
      new RegExp(`^Container migrations for pod ${ns}/${JOB_1_0}-\\w+ failed with exit code 65 matching FailJob rule at index \\d+$`),
      summary,
      65,
    );

    const refused = await statusOf(ns, { phase: 'Failed', migratedVersion: '1.1.0' });
    const message =
      `Job ${JOB_1_0} refused to run the code of 1.0.0 (version 1.0.0) on a database schema migrated by version 1.1.0: ` +
      `deploy a tag at least as new, or set the annotation ${ALLOW_DOWNGRADE_ANNOTATION} on the Shop to run it all the same`;
    expect(refused.message).toBe(message);
    expect(refused.conditions).toEqual(
      expect.arrayContaining([
        condition('MigrationsApplied', 'False', 'DowngradeRefused'),
        condition('Degraded', 'True', 'DowngradeRefused'),
      ]),
    );
    await eventually(async () =>
      expect(await warnings(ns)).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'Failed', message })])),
    );
    expect(refusing.spec.template.spec.containers[0]?.command).not.toContain('--allow-downgrade');

    await updateShop(
      cluster.kube,
      ns,
      'shop',
      (shop) => (shop.metadata = { ...shop.metadata, annotations: { [ALLOW_DOWNGRADE_ANNOTATION]: 'yes' } }),
    );
    const allowed = await eventually(async () => {
      const found = await job(ns, JOB_1_0);
      expect(found?.metadata.uid).toBeDefined();
      expect(found?.metadata.uid).not.toBe(refusing.metadata.uid);
      return found as StoredJob;
    });
    expect(allowed.spec.template.spec.containers[0]?.command.at(-1)).toBe('--allow-downgrade');
    await statusOf(ns, { phase: 'Migrating' });
    await completeJob(
      cluster.kube,
      ns,
      JOB_1_0,
      formatMigrationSummary({ schemaVersion: '1.1.0', imageVersion: '1.0.0', downgradeRefused: false }),
    );
    await statusOf(ns, { phase: 'Deploying', migratedVersion: '1.0.0' });
  });

  it('keeps a Job that failed for another reason when annotated, and reports it as MigrationFailed', async () => {
    const ns = await cluster.namespace('downgrade-other');
    await createReferencedSecrets(cluster.kube, ns);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0'));
    const failed = await jobCreated(ns, JOB_1_0);
    await failJob(
      cluster.kube,
      ns,
      JOB_1_0,
      'BackoffLimitExceeded',
      'Job has reached the specified backoff limit',
      'error: relation "Order" does not exist',
    );
    await statusOf(ns, {
      phase: 'Failed',
      conditions: expect.arrayContaining([condition('MigrationsApplied', 'False', 'MigrationFailed')]),
    });

    // With a new generation, so that the status says when a pass that saw the annotation ended.
    await updateShop(cluster.kube, ns, 'shop', (shop) => {
      shop.metadata = { ...shop.metadata, annotations: { [ALLOW_DOWNGRADE_ANNOTATION]: 'yes' } };
      shop.spec.config = { LOG_LEVEL: 'debug' };
    });
    const { generation } = (await readShop(cluster.kube, ns, 'shop')).metadata;
    await statusOf(ns, { phase: 'Failed', observedGeneration: generation });
    expect((await job(ns, JOB_1_0))?.metadata.uid).toBe(failed.metadata.uid);
  });
});

describe('a paused Shop', () => {
  const logLevels = async (ns: string) => {
    const reply = await cluster.kube<{ items: Array<{ data?: Record<string, string> }> }>('GET', `/api/v1/namespaces/${ns}/configmaps`);
    return reply.body.items.map((item) => item.data?.LOG_LEVEL).filter((level) => level !== undefined);
  };
  const generationSeen = async (ns: string, expected: Record<string, unknown>) => {
    const { generation } = (await readShop(cluster.kube, ns, 'shop')).metadata;
    return statusOf(ns, { observedGeneration: generation, ...expected });
  };

  it('gets no write while paused, says so in its phase, and catches up once resumed', async () => {
    const ns = await cluster.namespace('paused');
    await createReferencedSecrets(cluster.kube, ns);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0', { config: { LOG_LEVEL: 'info' } }));
    await jobCreated(ns, JOB_1_0);
    expect(await logLevels(ns)).toEqual(['info']);

    await updateShop(cluster.kube, ns, 'shop', (shop) => {
      shop.spec.paused = true;
      shop.spec.image.tag = '1.1.0';
      shop.spec.config = { LOG_LEVEL: 'debug' };
    });
    const paused = await generationSeen(ns, { phase: 'Paused' });
    expect(paused.message).toBe('spec.paused is true: the operator changes nothing of this Shop until it is false');
    expect(paused.conditions).toEqual(
      expect.arrayContaining([condition('Ready', 'False', 'Paused'), condition('Degraded', 'False', 'NoFailure')]),
    );
    expect(await logLevels(ns)).toEqual(['info']);
    expect(await job(ns, JOB_1_1)).toBeUndefined();

    await updateShop(cluster.kube, ns, 'shop', (shop) => (shop.spec.paused = false));
    await jobCreated(ns, JOB_1_1);
    await generationSeen(ns, { phase: 'Migrating' });
    expect(await logLevels(ns)).toContain('debug');
  });

  it('is created without an object of its own until resumed', async () => {
    const ns = await cluster.namespace('paused-new');
    await createReferencedSecrets(cluster.kube, ns);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0', { paused: true, config: { LOG_LEVEL: 'info' } }));
    await generationSeen(ns, { phase: 'Paused' });
    expect(await logLevels(ns)).toEqual([]);
    expect(await job(ns, JOB_1_0)).toBeUndefined();
    const secrets = await cluster.kube<{ items: Array<{ metadata: { name: string } }> }>('GET', `/api/v1/namespaces/${ns}/secrets`);
    expect(secrets.body.items.map((secret) => secret.metadata.name).sort()).toEqual(['shop-cache', 'shop-db', 'shop-kafka']);
  });
});

describe('the seed of a first install', () => {
  interface SeedJob {
    metadata: { uid: string };
    spec: { template: { spec: { containers: Array<{ command: string[]; env: Array<{ name: string; valueFrom?: unknown }> }> } } };
  }

  it('runs once after the migrations, with the admin from the Secret the Shop names, and never again once recorded', async () => {
    const ns = await cluster.namespace('seed');
    await createReferencedSecrets(cluster.kube, ns);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0', { seed: { adminSecretName: 'shop-admin' } }));
    await jobCreated(ns, JOB_1_0);
    expect(await job(ns, 'shop-seed')).toBeUndefined();
    await completeJob(cluster.kube, ns, JOB_1_0);

    const running = await statusOf(ns, { phase: 'Migrating', migratedVersion: '1.0.0' });
    expect(running.conditions).toEqual(expect.arrayContaining([condition('Ready', 'False', 'SeedRunning')]));
    const seedJob = (await cluster.kube<SeedJob>('GET', `/apis/batch/v1/namespaces/${ns}/jobs/shop-seed`)).body;
    const [container] = seedJob.spec.template.spec.containers;
    expect(container?.command).toEqual(['node', 'services/api/src/seed.ts', '--admin-only']);
    expect(container?.env).toEqual(
      expect.arrayContaining([
        { name: 'SEED_ADMIN_EMAIL', valueFrom: { secretKeyRef: { name: 'shop-admin', key: 'email' } } },
        { name: 'SEED_ADMIN_PASSWORD', valueFrom: { secretKeyRef: { name: 'shop-admin', key: 'password' } } },
        { name: 'SEED_ADMIN_NAME', valueFrom: { secretKeyRef: { name: 'shop-admin', key: 'name', optional: true } } },
      ]),
    );

    await completeJob(cluster.kube, ns, 'shop-seed');
    const seeded = await statusOf(ns, { phase: 'Deploying' });
    expect(Date.parse(seeded.seededAt ?? '')).not.toBeNaN();

    // Gone (as its TTL would remove it), and a new generation: the recorded seed is not run again.
    await cluster.kube('DELETE', `/apis/batch/v1/namespaces/${ns}/jobs/shop-seed`, { propagationPolicy: 'Background' });
    await eventually(async () => expect(await job(ns, 'shop-seed')).toBeUndefined());
    await updateShop(cluster.kube, ns, 'shop', (shop) => (shop.spec.config = { LOG_LEVEL: 'debug' }));
    const { generation } = (await readShop(cluster.kube, ns, 'shop')).metadata;
    await statusOf(ns, { observedGeneration: generation, phase: 'Deploying', seededAt: seeded.seededAt });
    expect(await job(ns, 'shop-seed')).toBeUndefined();
  });

  it('stops the Shop as SeedFailed when the seed fails', async () => {
    const ns = await cluster.namespace('seed-failed');
    await createReferencedSecrets(cluster.kube, ns);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0', { seed: { adminSecretName: 'shop-admin' } }));
    await jobCreated(ns, JOB_1_0);
    await completeJob(cluster.kube, ns, JOB_1_0);
    await jobCreated(ns, 'shop-seed');
    await failJob(
      cluster.kube,
      ns,
      'shop-seed',
      'BackoffLimitExceeded',
      'Job has reached the specified backoff limit',
      'seed error: SEED_ADMIN_PASSWORD: password must be at least 10 characters',
    );

    const failed = await statusOf(ns, {
      phase: 'Failed',
      conditions: expect.arrayContaining([condition('Degraded', 'True', 'SeedFailed')]),
    });
    expect(failed.message).toContain(
      'seed Job shop-seed failed (BackoffLimitExceeded): Job has reached the specified backoff limit; pod shop-seed-',
    );
    expect(failed.message).toContain(
      'exited with code 1 (Error): seed error: SEED_ADMIN_PASSWORD: password must be at least 10 characters; delete the Job to run it again',
    );
    expect(failed.seededAt).toBeUndefined();
  });
});

describe('a pinned image', () => {
  it('records the digest its migration Job ran, and forgets it for a new version migrated without one', async () => {
    const digest = `sha256:${'c0'.repeat(32)}`;
    const ns = await cluster.namespace('digest');
    await createReferencedSecrets(cluster.kube, ns);
    const shop = shopManifest('shop', '1.0.0');
    shop.spec.image.digest = digest;
    await createShop(cluster.kube, ns, shop);
    await jobCreated(ns, JOB_1_0);
    // The node agent reports the pinned image as the container's imageID, as a runtime reports the digest it ran.
    await completeJob(cluster.kube, ns, JOB_1_0);
    await statusOf(ns, { migratedVersion: '1.0.0', migratedDigest: digest });

    await updateShop(cluster.kube, ns, 'shop', (stored) => {
      stored.spec.image = { repository: stored.spec.image.repository, tag: '1.1.0' };
    });
    await jobCreated(ns, JOB_1_1);
    await completeJob(cluster.kube, ns, JOB_1_1);
    const upgraded = await statusOf(ns, { migratedVersion: '1.1.0' });
    expect(upgraded.migratedDigest).toBeUndefined();
  });
});
