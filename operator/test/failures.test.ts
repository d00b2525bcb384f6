// Failures of the Shop's workloads reach its status, Events and metrics: the real Job, Deployment,
// ReplicaSet and quota controllers and the scheduler run; the node agent plays the kubelet, each pod's
// outcome (a crash loop, a pull error, running) chosen through its annotation (test/infra/workloads.ts).
import type { Shop, ShopStatus } from '@shop/cdk8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/wait.ts';
import type { RunningOperator } from '../src/operator.ts';
import { RETRY_MIGRATION_ANNOTATION } from '../src/reconcile/steps/migrations.ts';
import type { Pod } from '../../test/infra/node-agent.ts';
import { completeJob, directPod, failJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { metricValue, runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest, updateShop } from './support/shops.ts';
import { expectStatus, startTestCluster, type TestCluster } from './support/test-cluster.ts';

/** Short, so a pod that never starts is reported within a test. */
const POD_START_TIMEOUT_MS = 2_000;

let cluster: TestCluster;
let operator: RunningOperator;

beforeAll(async () => {
  cluster = await startTestCluster();
  operator = await runOperator(cluster, { podStartTimeoutMs: POD_START_TIMEOUT_MS });
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await cluster?.dispose();
});

const jobPath = (ns: string, name: string) => `/apis/batch/v1/namespaces/${ns}/jobs/${name}`;
const MIGRATION_JOB = 'shop-migrate-1-0-0';

async function newShop(prefix: string, shop: Shop = shopManifest('shop', '1.0.0')): Promise<string> {
  const ns = await cluster.namespace(prefix);
  await createReferencedSecrets(cluster.kube, ns);
  await createShop(cluster.kube, ns, shop);
  return ns;
}

function statusOf(ns: string, expected: Record<string, unknown>): Promise<ShopStatus> {
  return eventually(async () => {
    const { status } = await readShop(cluster.kube, ns, 'shop');
    expect(status).toMatchObject(expected);
    return status as ShopStatus;
  });
}

const condition = (type: string, status: string, reason: string) => expect.objectContaining({ type, status, reason });

async function jobUid(ns: string): Promise<string | undefined> {
  const reply = await cluster.kube<{ metadata: { uid: string } }>('GET', jobPath(ns, MIGRATION_JOB));
  return reply.status === 200 ? reply.body.metadata.uid : undefined;
}

async function migrate(ns: string): Promise<void> {
  await eventually(async () => expect(await jobUid(ns)).toBeDefined());
  await completeJob(cluster.kube, ns, MIGRATION_JOB);
  await statusOf(ns, { phase: 'Deploying', migratedVersion: '1.0.0' });
}

async function deploymentExists(ns: string, name: string): Promise<void> {
  await eventually(async () => expectStatus(await cluster.kube('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${name}`), 200));
}

async function markReady(ns: string): Promise<ShopStatus> {
  await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
  for (const name of ['shop-worker', 'shop-consumer']) {
    await deploymentExists(ns, name);
    await markDeploymentAvailable(cluster.kube, ns, name);
  }
  return statusOf(ns, { phase: 'Ready' });
}

/** The value of the operator's sample named `name` with (at least) these labels. */
async function sample(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${operator.metricsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function warnings(ns: string): Promise<Array<{ reason: string; message: string }>> {
  const selector = encodeURIComponent('involvedObject.kind=Shop,type=Warning');
  const reply = await cluster.kube<{ items: Array<{ reason: string; message: string }> }>(
    'GET',
    `/api/v1/namespaces/${ns}/events?fieldSelector=${selector}`,
  );
  return reply.body.items;
}

/** The pods of a Deployment (or a Job, by its `job-name` label) not being deleted, once there are `count` of them. */
async function podsOf(ns: string, selector: string, count = 1): Promise<Pod[]> {
  return eventually(async () => {
    const reply = await cluster.kube<{ items: Pod[] }>(
      'GET',
      `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`,
    );
    const pods = reply.body.items.filter((pod) => pod.metadata.deletionTimestamp === undefined);
    expect(pods.length).toBeGreaterThanOrEqual(count);
    return pods;
  });
}
const componentPods = (ns: string, component: string) =>
  podsOf(ns, `app.kubernetes.io/instance=shop,app.kubernetes.io/component=${component}`);

/** A ResourceQuota of `pods` in the namespace: the API server refuses any pod beyond it. */
async function podQuota(ns: string, pods: number): Promise<() => Promise<void>> {
  const path = `/api/v1/namespaces/${ns}/resourcequotas`;
  expectStatus(await cluster.kube('POST', path, { metadata: { name: 'pods' }, spec: { hard: { pods: String(pods) } } }), 201);
  // The quota admits nothing until its controller counted what is there.
  await eventually(async () =>
    expect(
      (await cluster.kube<{ status?: { used?: Record<string, string> } }>('GET', `${path}/pods`)).body.status?.used?.pods,
    ).toBeDefined(),
  );
  return async () => expectStatus(await cluster.kube('DELETE', `${path}/pods`), 200);
}

const LAST_LOG_LINES = 'Error: connect ECONNREFUSED 10.0.0.7:5432\n    at TCPConnectWrap.afterConnect';

describe('a component whose pods do not run', () => {
  it('is Degraded from the third crash of its container, with the pod, the exit code and its last log lines; Ready once it runs', async () => {
    const ns = await newShop('crash');
    await migrate(ns);
    // Every api pod exits 1, and the node agent restarts it with a back-off (0.5 s doubling).
    const crashing = await componentPods(ns, 'api');
    for (const pod of crashing) await directPod(cluster.kube, pod, 'exit 1', LAST_LOG_LINES);

    const status = await statusOf(ns, { phase: 'Degraded' });
    const names = crashing.map((pod) => pod.metadata.name).join('|');
    expect(status.message).toMatch(
      new RegExp(
        `^api: pod (${names}): container api CrashLoopBackOff: back-off \\d+s restarting failed container=api pod=(${names}); restarted [1-9]\\d* times; last run exited with code 1 \\(Error\\): `,
      ),
    );
    expect(status.message).toContain(`(Error): ${LAST_LOG_LINES}`);
    expect(status.conditions).toEqual(
      expect.arrayContaining([
        condition('Ready', 'False', 'CrashLoopBackOff'),
        condition('Degraded', 'True', 'CrashLoopBackOff'),
        condition('ApiAvailable', 'False', 'CrashLoopBackOff'),
        condition('MigrationsApplied', 'True', 'MigrationsComplete'),
      ]),
    );
    await eventually(async () => expect((await warnings(ns)).map((event) => event.reason)).toEqual(expect.arrayContaining(['Degraded'])));
    expect(await sample('shop_operator_shop_ready', { namespace: ns, shop: 'shop' })).toBe(0);
    expect(
      await sample('shop_operator_shop_condition', {
        namespace: ns,
        shop: 'shop',
        condition: 'Degraded',
        status: 'True',
        reason: 'CrashLoopBackOff',
      }),
    ).toBe(1);

    const ready = await markReady(ns);
    expect(ready.conditions).toEqual(
      expect.arrayContaining([condition('Degraded', 'False', 'NoFailure'), condition('Ready', 'True', 'Ready')]),
    );
    await expect.poll(() => sample('shop_operator_shop_ready', { namespace: ns, shop: 'shop' })).toBe(1);
    expect(
      await sample('shop_operator_shop_condition', {
        namespace: ns,
        shop: 'shop',
        condition: 'Degraded',
        status: 'False',
        reason: 'NoFailure',
      }),
    ).toBe(1);
    expect(
      await sample('shop_operator_shop_condition', { namespace: ns, shop: 'shop', condition: 'Degraded', status: 'True' }),
    ).toBeUndefined();
  });

  it('is Degraded at once when the image cannot be pulled, naming the component; Ready once the pod runs', async () => {
    const ns = await newShop('pull');
    await migrate(ns);
    await markDeploymentAvailable(cluster.kube, ns, 'shop-api');
    const [pod] = await componentPods(ns, 'worker');
    if (!pod) throw new Error('the worker has no pod');
    await directPod(cluster.kube, pod, 'ErrImagePull');

    const status = await statusOf(ns, { phase: 'Degraded' });
    expect(status.message).toContain(`worker: pod ${pod.metadata.name}: container worker ErrImagePull`);
    expect(status.conditions).toEqual(
      expect.arrayContaining([
        condition('Degraded', 'True', 'ImagePullBackOff'),
        condition('WorkerAvailable', 'False', 'ImagePullBackOff'),
        condition('ApiAvailable', 'True', 'RolledOut'),
      ]),
    );
    await markReady(ns);
  });

  it('is Degraded with FailedCreate when a ResourceQuota refuses its pods; Ready once the quota is lifted', async () => {
    const ns = await newShop('failedcreate');
    await podsOf(ns, `job-name=${MIGRATION_JOB}`);
    // The migration's pod is there already; the api's will be refused.
    const lift = await podQuota(ns, 0);
    await completeJob(cluster.kube, ns, MIGRATION_JOB);

    const status = await statusOf(ns, {
      phase: 'Degraded',
      conditions: expect.arrayContaining([condition('Degraded', 'True', 'FailedCreate')]),
    });
    expect(status.message).toMatch(
      /^api: Deployment shop-api cannot create pods: pods "shop-api-[a-z0-9-]+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=\d+, limited: pods=0/,
    );
    await lift();
    await markReady(ns);
  });

  it('is Degraded with ProgressDeadlineExceeded from the Deployment controller; Ready once it rolls out', async () => {
    const ns = await newShop('progress');
    await migrate(ns);
    // Started but never ready: no pod failure of its own, only the Deployment's lack of progress.
    const replicas = (await cluster.kube<{ spec: { replicas: number } }>('GET', `/apis/apps/v1/namespaces/${ns}/deployments/shop-api`)).body
      .spec.replicas;
    const selector = 'app.kubernetes.io/instance=shop,app.kubernetes.io/component=api';
    for (const pod of await podsOf(ns, selector, replicas)) await directPod(cluster.kube, pod, 'unready');
    // The renderer leaves the deadline at Kubernetes' 10 minutes; a second lets the controller give up at once on pods that never start.
    await eventually(async () => {
      const path = `/apis/apps/v1/namespaces/${ns}/deployments/shop-api`;
      const deployment = await cluster.kube<{ spec: Record<string, unknown> }>('GET', path);
      expectStatus(
        await cluster.kube('PUT', path, { ...deployment.body, spec: { ...deployment.body.spec, progressDeadlineSeconds: 1 } }),
        200,
      );
    });

    const status = await statusOf(ns, {
      phase: 'Degraded',
      conditions: expect.arrayContaining([condition('Degraded', 'True', 'ProgressDeadlineExceeded')]),
    });
    expect(status.message).toMatch(/^api: Deployment shop-api: ReplicaSet "shop-api-[a-z0-9]+" has timed out progressing\./);
    await markReady(ns);
  });
});

describe('a migration', () => {
  it('whose Job creates no pod is Degraded after the start timeout with the Job controller’s FailedCreate Event, and goes on once its pod runs', async () => {
    const ns = await cluster.namespace('no-pod');
    await createReferencedSecrets(cluster.kube, ns);
    const lift = await podQuota(ns, 0);
    await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0'));

    // Nothing watched changes: the pass that reports it is the one requeued for the end of the timeout.
    const status = await statusOf(ns, { phase: 'Degraded' });
    expect(status.message).toMatch(
      new RegExp(
        `^migrations: Job ${MIGRATION_JOB} has no pod 2 s after it was created: Error creating: pods "${MIGRATION_JOB}-[a-z0-9]+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=0, limited: pods=0`,
      ),
    );
    expect(status.conditions).toEqual(
      expect.arrayContaining([condition('MigrationsApplied', 'False', 'FailedCreate'), condition('Degraded', 'True', 'FailedCreate')]),
    );

    await lift();
    const [pod] = await podsOf(ns, `job-name=${MIGRATION_JOB}`);
    if (!pod) throw new Error('the migration Job has no pod');
    await directPod(cluster.kube, pod, 'running');
    await statusOf(ns, { phase: 'Migrating', conditions: expect.arrayContaining([condition('Degraded', 'False', 'NoFailure')]) });
    await completeJob(cluster.kube, ns, MIGRATION_JOB);
    await statusOf(ns, { phase: 'Deploying', migratedVersion: '1.0.0' });
  });

  it('whose pod is not scheduled is Degraded with the scheduler’s reason once the start timeout ends', async () => {
    const ns = await newShop('unscheduled', shopManifest('shop', '1.0.0', { podDefaults: { nodeSelector: { 'shop.test/pool': 'none' } } }));
    const [pod] = await podsOf(ns, `job-name=${MIGRATION_JOB}`);

    const status = await statusOf(ns, { phase: 'Degraded' });
    expect(status.message).toMatch(
      new RegExp(
        `^migrations: pod ${pod?.metadata.name} has not started 2 s after it was created: Unschedulable: 0/1 nodes are available: 1 node\\(s\\) didn't match Pod's node affinity/selector`,
      ),
    );
    expect(status.conditions).toEqual(expect.arrayContaining([condition('MigrationsApplied', 'False', 'Unschedulable')]));
  });

  it('past its activeDeadlineSeconds is Failed as timed out, saying how to run it again', async () => {
    const ns = await newShop('timeout');
    await eventually(async () => expect(await jobUid(ns)).toBeDefined());
    // The rendered deadline is an hour; a second makes the Job controller end the pod that never finishes.
    await eventually(async () => {
      const job = await cluster.kube<{ spec: Record<string, unknown> }>('GET', jobPath(ns, MIGRATION_JOB));
      expectStatus(
        await cluster.kube('PUT', jobPath(ns, MIGRATION_JOB), { ...job.body, spec: { ...job.body.spec, activeDeadlineSeconds: 1 } }),
        200,
      );
    });

    const status = await statusOf(ns, { phase: 'Failed' });
    expect(status.message).toBe(
      `Job ${MIGRATION_JOB} did not finish within its activeDeadlineSeconds (1 s): Job was active longer than specified deadline; set the annotation ${RETRY_MIGRATION_ANNOTATION} on the Shop to run it again`,
    );
    expect(status.conditions).toEqual(
      expect.arrayContaining([
        condition('MigrationsApplied', 'False', 'MigrationTimedOut'),
        condition('Degraded', 'True', 'MigrationTimedOut'),
      ]),
    );
  });

  it('that failed runs again once per retry annotation, which the operator removes', async () => {
    const ns = await newShop('retry');
    await eventually(async () => expect(await jobUid(ns)).toBeDefined());
    const first = await jobUid(ns);
    await failJob(
      cluster.kube,
      ns,
      MIGRATION_JOB,
      'BackoffLimitExceeded',
      'Job has reached the specified backoff limit',
      'error: relation "Order" does not exist',
    );
    const failed = await statusOf(ns, { phase: 'Failed' });
    expect(failed.message).toContain('failed (BackoffLimitExceeded): Job has reached the specified backoff limit; pod shop-migrate-1-0-0-');
    expect(failed.message).toContain(': container migrations exited with code 1 (Error): error: relation "Order" does not exist');

    const annotate = () =>
      updateShop(
        cluster.kube,
        ns,
        'shop',
        (shop) => (shop.metadata = { ...shop.metadata, annotations: { [RETRY_MIGRATION_ANNOTATION]: 'please' } }),
      );
    await annotate();
    const second = await eventually(async () => {
      const uid = await jobUid(ns);
      expect(uid).toBeDefined();
      expect(uid).not.toBe(first);
      return uid;
    });
    await statusOf(ns, { phase: 'Migrating' });
    expect((await readShop(cluster.kube, ns, 'shop')).metadata.annotations?.[RETRY_MIGRATION_ANNOTATION]).toBeUndefined();

    // Failed again: the pass that reports it sees the failed Job and no annotation, and keeps the Job.
    await failJob(cluster.kube, ns, MIGRATION_JOB, 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
    await statusOf(ns, { phase: 'Failed' });
    expect(await jobUid(ns)).toBe(second);

    await annotate();
    await eventually(async () => {
      const uid = await jobUid(ns);
      expect(uid).toBeDefined(); // deleted, and not yet created again, is not enough
      expect(uid).not.toBe(second);
    });
    await completeJob(cluster.kube, ns, MIGRATION_JOB);
    await statusOf(ns, { phase: 'Deploying', migratedVersion: '1.0.0' });
  }, 180_000);

  it('that runs keeps its Job when annotated for a retry, and the annotation is removed', async () => {
    const ns = await newShop('retry-running');
    await eventually(async () => expect(await jobUid(ns)).toBeDefined());
    const running = await jobUid(ns);
    await updateShop(
      cluster.kube,
      ns,
      'shop',
      (shop) => (shop.metadata = { ...shop.metadata, annotations: { [RETRY_MIGRATION_ANNOTATION]: 'x' } }),
    );
    await eventually(async () =>
      expect((await readShop(cluster.kube, ns, 'shop')).metadata.annotations?.[RETRY_MIGRATION_ANNOTATION]).toBeUndefined(),
    );
    expect(await jobUid(ns)).toBe(running);
    await statusOf(ns, { phase: 'Migrating' });
  });
});

describe('an object the operator cannot read', () => {
  it('puts a malformed annotation in the status, retries with backoff rather than at once, and goes on once it is repaired', async () => {
    const ns = await newShop('malformed');
    await migrate(ns);
    const secretPath = `/api/v1/namespaces/${ns}/secrets/shop-generated-keys`;
    const annotateSecret = async (value: string | undefined) => {
      const secret = await cluster.kube<{ metadata: { annotations?: Record<string, string> } }>('GET', secretPath);
      const { 'shop.dev/keys-revision': _revision, ...others } = secret.body.metadata.annotations ?? {};
      const annotations = value === undefined ? others : { ...others, 'shop.dev/keys-revision': value };
      return cluster.kube('PUT', secretPath, { ...secret.body, metadata: { ...secret.body.metadata, annotations } });
    };
    expectStatus(await annotateSecret('two'), 200);
    // Secrets are not watched: a change to the Shop brings the pass.
    await updateShop(cluster.kube, ns, 'shop', (shop) => (shop.metadata = { ...shop.metadata, labels: { touched: 'yes' } }));

    const status = await statusOf(ns, { phase: 'Failed' });
    expect(status.message).toBe('generated keys: Secret shop-generated-keys: shop.dev/keys-revision is not a revision: two');
    expect(status.conditions).toEqual(
      expect.arrayContaining([condition('Ready', 'False', 'InvalidObject'), condition('Degraded', 'True', 'InvalidObject')]),
    );
    await expect.poll(() => sample('shop_operator_shop_reconcile_error', { namespace: ns, shop: 'shop' })).toBe(1);

    const since = Date.now();
    const errors = async () => (await metricValue(operator, 'shop_operator_reconcile_total{result="error"}')) ?? 0;
    const errorsBefore = await errors();
    const { resourceVersion } = (await readShop(cluster.kube, ns, 'shop')).metadata;
    // Backoff from 100 ms doubling to 2 s (runOperator's): after the next retry, two more wait at least 200 and
    // 400 ms, where a hot loop makes them in a few.
    await expect.poll(async () => (await errors()) - errorsBefore, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(Date.now() - since).toBeGreaterThanOrEqual(600);
    expect((await readShop(cluster.kube, ns, 'shop')).metadata.resourceVersion).toBe(resourceVersion);

    expectStatus(await annotateSecret(undefined), 200);
    await markReady(ns);
    await expect.poll(() => sample('shop_operator_shop_reconcile_error', { namespace: ns, shop: 'shop' })).toBe(0);
  });
});
