// The Shops' Jobs and Deployments as the real controllers report them, and the baseline: the same
// objects written directly, no operator, each step waiting for the controllers as the operator does.
import { randomBytes } from 'node:crypto';
import { GENERATED_KEYS, generatedKeysSecretName, renderShop, type KubeObject, type ShopManifests } from '@shop/cdk8s';
import { MANAGED_BY_SELECTOR, managedFor, ownedManifests } from '../../operator/src/kube/ownership.ts';
import { CONDITION_TYPES, type ConditionReport, type ConditionType } from '../../operator/src/reconcile/conditions.ts';
import { nextStatus } from '../../operator/src/reconcile/status.ts';
import type { StoredShop } from '../../operator/src/shop-resource.ts';
import { shopManifest, shopsPath } from '../../operator/test/support/shops.ts';
import { expectStatus, type TestCluster } from '../../operator/test/support/test-cluster.ts';
import { percentile, seconds } from './report.ts';
import { TAG, type ShopName } from './shops.ts';
import { keyOf, track, type Tracker, type WaitOptions, type Watched } from './watch.ts';

interface Condition {
  type: string;
  status: string;
}
interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  conditions?: Condition[];
}

const isComplete = (job: Watched): boolean =>
  ((job.status?.conditions ?? []) as Condition[]).some((condition) => condition.type === 'Complete' && condition.status === 'True');

/** Every replica of the current template available, and no other pod left: the Deployment controller's verdict. */
export function isRolledOut(deployment: Watched): boolean {
  const status = (deployment.status ?? {}) as DeploymentStatus;
  const wanted = (deployment.spec?.replicas as number | undefined) ?? 1;
  return (
    status.observedGeneration === deployment.metadata.generation &&
    (status.updatedReplicas ?? 0) === wanted &&
    (status.availableReplicas ?? 0) === wanted &&
    (status.replicas ?? 0) === wanted
  );
}

const describe = (object: Watched | undefined): string =>
  object ? JSON.stringify({ generation: object.metadata.generation, status: object.status ?? null }) : '(not seen)';

export interface Workloads {
  readonly jobs: Tracker;
  readonly deployments: Tracker;
  stop(): Promise<void>;
}

export async function trackWorkloads(cluster: TestCluster): Promise<Workloads> {
  const jobs = await track(cluster, '/apis/batch/v1/jobs', { labelSelector: MANAGED_BY_SELECTOR, done: isComplete, describe });
  const deployments = await track(cluster, '/apis/apps/v1/deployments', {
    labelSelector: MANAGED_BY_SELECTOR,
    done: isRolledOut,
    describe,
  });
  return { jobs, deployments, stop: async () => void (await Promise.all([jobs.stop(), deployments.stop()])) };
}

/**
 * When each child of the only Shop in `namespace` was created and when its controller reported it done
 * (Job Complete, Deployment rolled out), in ms from the Shop's creation.
 */
export function timeline(workloads: Workloads, namespace: string, startedAt: number, readyAt: number): Record<string, number> {
  const points: Record<string, number> = {};
  for (const [kind, tracker] of [
    ['job', workloads.jobs],
    ['deployment', workloads.deployments],
  ] as const) {
    for (const [key, seen] of tracker.seenAt) {
      if (!key.startsWith(`${namespace}/`)) continue;
      const what = kind === 'job' ? 'job' : key.slice(key.lastIndexOf('-') + 1);
      points[`${what}_created`] = Math.round(seen - startedAt);
      const done = tracker.doneAt.get(key);
      if (done !== undefined) points[`${what}_${kind === 'job' ? 'complete' : 'available'}`] = Math.round(done - startedAt);
    }
  }
  points.shop_ready = Math.round(readyAt - startedAt);
  return Object.fromEntries(Object.entries(points).sort(([, a], [, b]) => a - b));
}

/**
 * Across `shops`, in s from `startedAt`: the median and the last of when each Shop's Job was created and
 * completed, its first Deployment created, its last one created and rolled out, and the Shop Ready. The
 * gaps say whose time it is: created to done the controllers' and the agent's, done to the next created
 * the operator's.
 */
export function phases(
  workloads: Workloads,
  shops: readonly ShopName[],
  startedAt: number,
  readyAt: ReadonlyMap<string, number>,
): Record<string, { p50_s: number; max_s: number }> {
  const columns: Record<string, number[]> = {
    job_created: [],
    job_complete: [],
    first_deployment_created: [],
    last_deployment_created: [],
    last_deployment_available: [],
    shop_ready: [],
  };
  const of = (times: ReadonlyMap<string, number>, prefix: string) =>
    [...times].filter(([key]) => key.startsWith(prefix)).map(([, at]) => at - startedAt);
  for (const shop of shops) {
    const prefix = `${shop.namespace}/${shop.name}-`;
    const add = (column: string, values: number[], pick: (...values: number[]) => number) =>
      void (values.length > 0 && columns[column]?.push(pick(...values)));
    add('job_created', of(workloads.jobs.seenAt, prefix), Math.min);
    add('job_complete', of(workloads.jobs.doneAt, prefix), Math.min);
    add('first_deployment_created', of(workloads.deployments.seenAt, prefix), Math.min);
    add('last_deployment_created', of(workloads.deployments.seenAt, prefix), Math.max);
    add('last_deployment_available', of(workloads.deployments.doneAt, prefix), Math.max);
    const ready = readyAt.get(`${shop.namespace}/${shop.name}`);
    if (ready !== undefined) columns.shop_ready?.push(ready - startedAt);
  }
  return Object.fromEntries(
    Object.entries(columns).map(([column, values]) => [
      column,
      { p50_s: seconds(percentile(values, 50)), max_s: seconds(Math.max(...values)) },
    ]),
  );
}

const PLURALS: Record<string, string> = {
  ConfigMap: 'configmaps',
  Secret: 'secrets',
  Service: 'services',
  Job: 'jobs',
  Deployment: 'deployments',
  PodDisruptionBudget: 'poddisruptionbudgets',
};

function collectionPath(object: KubeObject): string {
  const group = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  return `${group}/namespaces/${object.metadata.namespace}/${PLURALS[object.kind]}`;
}

/**
 * One Shop, in the order the operator writes it, waiting where it waits: the Shop, its keys Secret,
 * ConfigMap and Job (until the Job controller reports it Complete), the api Deployment, Service and
 * PDB (until the api is rolled out), worker (and its PDB) and consumer (until they are rolled out), and
 * the Shop's Ready status.
 */
async function writeShopDirectly(
  cluster: TestCluster,
  workloads: Workloads,
  { namespace, name }: ShopName,
  rendered: ShopManifests,
  wait: Omit<WaitOptions, 'what'>,
): Promise<void> {
  const post = async <T extends Watched>(path: string, body: unknown): Promise<T> => {
    const reply = await cluster.kube<T>('POST', path, body);
    expectStatus(reply, 201);
    return reply.body;
  };
  const create = (object: KubeObject) => post<Watched>(collectionPath(object), object);
  const done = (tracker: Tracker, objects: readonly Watched[]) =>
    tracker.until(objects.map(keyOf), tracker === workloads.jobs ? isComplete : isRolledOut, {
      ...wait,
      what: `baseline ${objects.map(keyOf).join(', ')}`,
    });

  const shop = await post<Watched & StoredShop>(shopsPath(namespace), shopManifest(name, TAG));
  const manifests = ownedManifests(shop, rendered);
  await create(
    managedFor(shop, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: generatedKeysSecretName(name) },
      type: 'Opaque',
      stringData: {
        [GENERATED_KEYS.secretKey]: randomBytes(48).toString('base64url'),
        [GENERATED_KEYS.secretsMasterKey]: randomBytes(32).toString('base64'),
      },
    }),
  );
  await create(manifests.configMap);
  await done(workloads.jobs, [await create(manifests.migrationJob)]);
  const api = await create(manifests.api.deployment);
  await create(manifests.api.service);
  await create(manifests.api.disruptionBudget);
  await done(workloads.deployments, [api]);
  const worker = await create(manifests.worker.deployment);
  await create(manifests.worker.disruptionBudget);
  await done(workloads.deployments, [worker, await create(manifests.consumer.deployment)]);
  const allTrue = new Map<ConditionType, ConditionReport>(
    CONDITION_TYPES.map((type) => [type, { status: 'True', reason: 'Ready', message: `${type} of ${TAG}` }]),
  );
  const status = nextStatus(
    undefined,
    {
      generation: shop.metadata.generation,
      phase: 'Ready',
      message: `the api, worker and consumer of ${TAG} are available`,
      migratedVersion: TAG,
      conditions: allTrue,
    },
    new Date(),
  );
  expectStatus(await cluster.kube('PUT', `${shopsPath(namespace)}/${name}/status`, { ...shop, status }), 200);
}

/** The baseline's time for all of `shops`, written concurrently. */
export async function baseline(
  cluster: TestCluster,
  workloads: Workloads,
  shops: readonly ShopName[],
  wait: Omit<WaitOptions, 'what'>,
): Promise<number> {
  // Rendering is the operator's work, not an API write: done before the clock starts.
  const rendered = shops.map(({ name }) => renderShop(shopManifest(name, TAG)));
  const started = performance.now();
  await Promise.all(shops.map((shop, i) => writeShopDirectly(cluster, workloads, shop, rendered[i] as ShopManifests, wait)));
  return performance.now() - started;
}
