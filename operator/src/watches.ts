import { makeInformer, type Informer, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { backoffDelay } from './backoff.ts';
import type { KubeClients } from './kube/clients.ts';
import { describeError } from './kube/errors.ts';
import { MANAGED_BY_SELECTOR, controllingShopKey } from './kube/ownership.ts';
import type { Logger } from '@shop/runtime';
import { SHOP_API, SHOP_API_VERSION, shopKey } from './shop-resource.ts';

export interface ShopWatches {
  /** The Shops currently known from the Shop watch, as queue keys. */
  shopKeys(): string[];
  stop(): Promise<void>;
}

export interface ShopWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly clients: KubeClients;
  /** Watch one namespace; all namespaces when undefined. */
  readonly namespace: string | undefined;
  /** Called with the key of the Shop an event concerns. */
  readonly enqueue: (key: string) => void;
  readonly logger: Logger;
}

const RESTART_BACKOFF = { initialMs: 1_000, maxMs: 30_000 };

/**
 * Watches Shops, the Jobs and Deployments the operator created (selected by label) and their pods,
 * mapping each event to its Shop's key: a Shop by its own name, an owned object by its controlling
 * ownerReference, a pod by its Shop label.
 */
export function watchShops(options: ShopWatchOptions): ShopWatches {
  const watch = <T extends KubernetesObject>(apiVersion: string, kind: string, plural: string, toKey: (object: T) => string | undefined, labelSelector?: string) =>
    startWatch<T>(options, { apiVersion, kind, plural, labelSelector }, toKey);
  const shops = watch(SHOP_API_VERSION, SHOP_API.kind, SHOP_API.plural, shopKeyOf);
  const owned = [
    watch('batch/v1', 'Job', 'jobs', controllingShopKey, MANAGED_BY_SELECTOR),
    watch('apps/v1', 'Deployment', 'deployments', controllingShopKey, MANAGED_BY_SELECTOR),
    watchShopPods(options),
  ];
  return {
    shopKeys: () => shops.informer.list().flatMap((shop) => shopKeyOf(shop) ?? []),
    stop: async () => {
      await Promise.all([shops, ...owned].map((running) => running.stop()));
    },
  };
}

/** The label the renderer puts on every pod template with the name of the Shop. */
const SHOP_INSTANCE_LABEL = 'app.kubernetes.io/instance';

/**
 * The pods of the Shops' workloads, by the labels of their pod templates (a pod's owner is a
 * ReplicaSet or a Job, not the Shop): a crash, a pull error or a pod that cannot be scheduled reaches
 * the Shop's status without waiting for the resync.
 */
function watchShopPods(options: ShopWatchOptions): RunningWatch<KubernetesObject> {
  const toKey = (pod: KubernetesObject) => {
    const { namespace, labels } = pod.metadata ?? {};
    const shop = labels?.[SHOP_INSTANCE_LABEL];
    return namespace && shop ? shopKey(namespace, shop) : undefined;
  };
  return startWatch(options, { apiVersion: 'v1', kind: 'Pod', plural: 'pods', labelSelector: MANAGED_BY_SELECTOR }, toKey);
}

function shopKeyOf(shop: KubernetesObject): string | undefined {
  const { namespace, name } = shop.metadata ?? {};
  return namespace && name ? shopKey(namespace, name) : undefined;
}

interface WatchedKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly labelSelector: string | undefined;
}

interface RunningWatch<T extends KubernetesObject> {
  readonly informer: Informer<T> & { list(): readonly T[] };
  stop(): Promise<void>;
}

/** An informer (list, then watch from its resourceVersion) that starts again with backoff when it fails. */
function startWatch<T extends KubernetesObject>(options: ShopWatchOptions, watched: WatchedKind, toKey: (object: T) => string | undefined): RunningWatch<T> {
  const { apiVersion, kind, plural, labelSelector } = watched;
  const group = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const path = options.namespace ? `${group}/namespaces/${options.namespace}/${plural}` : `${group}/${plural}`;
  const list = () =>
    options.clients.objects.list<T>(apiVersion, kind, options.namespace, undefined, undefined, undefined, undefined, labelSelector) as Promise<KubernetesListObject<T>>;
  const informer = makeInformer<T>(options.kubeConfig, path, list, labelSelector);

  let stopped = false;
  let failures = 0;
  let restart: NodeJS.Timeout | undefined;
  const onObject = (object: T) => {
    failures = 0;
    const key = toKey(object);
    if (key) options.enqueue(key);
  };
  informer.on('add', onObject);
  informer.on('update', onObject);
  informer.on('delete', onObject);
  // client-node's informer gives up after an error; start it again, later each time.
  const onError = (error: unknown) => {
    if (stopped) return;
    failures += 1;
    const retryInMs = backoffDelay(failures, RESTART_BACKOFF);
    options.logger.warn({ kind, error: describeError(error), retryInMs }, 'watch failed; starting it again');
    restart = setTimeout(begin, retryInMs);
  };
  const begin = () => void informer.start().catch(onError);
  informer.on('error', onError);
  begin();
  return {
    informer,
    stop: async () => {
      stopped = true;
      clearTimeout(restart);
      await informer.stop();
    },
  };
}
