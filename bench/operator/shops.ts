// Shops: creating them in namespaces with the Secrets they reference, and following their status.
import { MANAGED_BY_SELECTOR } from '../../operator/src/kube/ownership.ts';
import { SHOP_API_VERSION } from '../../operator/src/shop-resource.ts';
import { createReferencedSecrets, shopManifest, shopsPath } from '../../operator/test/support/shops.ts';
import { expectStatus, type TestCluster } from '../../operator/test/support/test-cluster.ts';
import { track, type Tracker, type Watched, type WaitOptions } from './watch.ts';

export const TAG = '1.0.0';

export interface ShopName {
  readonly namespace: string;
  readonly name: string;
}

export const shopKeyOf = ({ namespace, name }: ShopName): string => `${namespace}/${name}`;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface ShopStatus {
  phase?: string;
  message?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

const statusOf = (shop: Watched): ShopStatus => (shop.status ?? {}) as ShopStatus;

export const conditionOf = (shop: Watched, type: string): Condition | undefined =>
  statusOf(shop).conditions?.find((condition) => condition.type === type);

/** Ready for its current generation. */
export const isReady = (shop: Watched): boolean =>
  statusOf(shop).phase === 'Ready' && statusOf(shop).observedGeneration === shop.metadata.generation;

/** Its phase and message and the conditions that are not True: what a Shop that is not Ready is waiting for. */
function describeShop(shop: Watched | undefined): string {
  if (!shop) return '(not seen)';
  const status = statusOf(shop);
  const notTrue = (status.conditions ?? []).filter((condition) => condition.status !== 'True' && condition.type !== 'Degraded');
  const degraded = conditionOf(shop, 'Degraded');
  const conditions = [...notTrue, ...(degraded?.status === 'True' ? [degraded] : [])].map(
    (condition) => `${condition.type}=${condition.status} ${condition.reason ?? ''}: ${condition.message ?? ''}`,
  );
  return `${status.phase ?? '(no status)'} (generation ${shop.metadata.generation}, observed ${status.observedGeneration}) ${JSON.stringify(status.message ?? '')}${conditions.length > 0 ? ` [${conditions.join(' | ')}]` : ''}`;
}

export const trackShops = (cluster: TestCluster): Promise<Tracker> =>
  track(cluster, `/apis/${SHOP_API_VERSION}/shops`, { done: isReady, describe: describeShop });

/** Namespaces with the Secrets the Shops reference, `shops` Shop names spread over them. */
export async function prepare(cluster: TestCluster, prefix: string, namespaces: number, shops: number): Promise<ShopName[]> {
  const created: string[] = [];
  for (let i = 0; i < namespaces; i += 1) {
    const namespace = await cluster.namespace(prefix);
    await createReferencedSecrets(cluster.kube, namespace);
    created.push(namespace);
  }
  return Array.from({ length: shops }, (_, i) => ({ namespace: created[i % namespaces] as string, name: `shop-${i + 1}` }));
}

/** Creates the Shops at once and resolves with the time until all are Ready, and each one's. */
export async function createAndWait(
  cluster: TestCluster,
  shops: Tracker,
  names: readonly ShopName[],
  wait: Omit<WaitOptions, 'what'>,
): Promise<{ totalMs: number; eachMs: number[]; startedAt: number; readyAt: Map<string, number> }> {
  const startedAt = performance.now();
  const keys = names.map(shopKeyOf);
  const ready = shops.until(keys, isReady, { ...wait, what: `${names.length} Shops to be Ready` });
  ready.catch(() => {}); // awaited below; a failed POST must not leave it unhandled
  await Promise.all(
    names.map(async ({ namespace, name }) => expectStatus(await cluster.kube('POST', shopsPath(namespace), shopManifest(name, TAG)), 201)),
  );
  const readyAt = await ready;
  const eachMs = keys.map((key) => (readyAt.get(key) as number) - startedAt);
  return { totalMs: Math.max(...eachMs), eachMs, startedAt, readyAt };
}

/** Every child of every Shop exists: checked after the clock stopped. */
export async function expectChildren(cluster: TestCluster, shops: readonly ShopName[]): Promise<void> {
  const perNamespace = new Map<string, number>();
  for (const { namespace } of shops) perNamespace.set(namespace, (perNamespace.get(namespace) ?? 0) + 1);
  const collections = {
    jobs: 'apis/batch/v1',
    deployments: 'apis/apps/v1',
    services: 'api/v1',
    poddisruptionbudgets: 'apis/policy/v1',
    configmaps: 'api/v1',
    secrets: 'api/v1',
  };
  const expected: Record<keyof typeof collections, number> = {
    jobs: 1,
    deployments: 3,
    services: 1,
    poddisruptionbudgets: 2,
    configmaps: 1,
    secrets: 1,
  };
  for (const [namespace, count] of perNamespace) {
    for (const [plural, group] of Object.entries(collections) as Array<[keyof typeof collections, string]>) {
      const reply = await cluster.kube<{ items: unknown[] }>(
        'GET',
        `/${group}/namespaces/${namespace}/${plural}?labelSelector=${encodeURIComponent(MANAGED_BY_SELECTOR)}`,
      );
      expectStatus(reply, 200);
      if (reply.body.items.length !== expected[plural] * count) {
        throw new Error(`${namespace}: ${reply.body.items.length} ${plural}, expected ${expected[plural] * count}`);
      }
    }
  }
}
