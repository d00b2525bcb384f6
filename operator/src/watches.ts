import {
  KubernetesObjectApi,
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import type { KubeObject, Shop } from '@shop/cdk8s';
import { backoffDelay } from './backoff.ts';
import type { KubeClients } from './kube/clients.ts';
import { describeError } from './kube/errors.ts';
import { MANAGED_BY_SELECTOR, controllingShopKey } from './kube/ownership.ts';
import type { Logger } from '@shop/runtime';
import { MONITORING_API_VERSION } from './monitoring/prometheus-rule.ts';
import { SHOP_API, SHOP_API_VERSION, shopKey } from './shop-resource.ts';

/** What the passes read of the watches. */
export interface WatchCache {
  /** The owned object as its watch holds it; undefined when none does (absent, its kind not watched, or not listed yet). */
  cached(object: KubeObject): KubernetesObject | undefined;
  /** Watches the Prometheus Operator's kinds that discovery says are served, and no longer those that are not (their CRD was removed). */
  watchMonitoringKinds(served: ReadonlySet<string>): void;
}

export interface ShopWatches extends WatchCache {
  /** The Shops currently known from the Shop watch, as queue keys. */
  shopKeys(): string[];
  /** The kinds whose first list has not arrived yet: an empty list once every cache is filled. */
  unsynced(): string[];
  stop(): Promise<void>;
}

export interface ShopWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly clients: KubeClients;
  /** Watch one namespace; all namespaces when undefined. */
  readonly namespace: string | undefined;
  /** Watch Secrets in these namespaces only (where the operator may read them); `namespace` when undefined. */
  readonly secretNamespaces?: readonly string[];
  /** Called with the key of the Shop an event concerns. */
  readonly enqueue: (key: string) => void;
  readonly logger: Logger;
}

const RESTART_BACKOFF = { initialMs: 1_000, maxMs: 30_000 };

/** The Prometheus Operator's kinds the operator provisions, watched only while the API server serves them. */
const MONITORING_KINDS = [
  { kind: 'PrometheusRule', plural: 'prometheusrules' },
  { kind: 'PodMonitor', plural: 'podmonitors' },
];

/**
 * Watches Shops, the Jobs, Deployments, Services, ConfigMaps, PodDisruptionBudgets,
 * HorizontalPodAutoscalers, NetworkPolicies, PrometheusRules and PodMonitors the operator created (selected by label)
 * and their pods, and Secrets, mapping each event to Shop keys: a Shop by its own name, an owned object by its controlling
 * ownerReference, a pod by its Shop label, a Secret by the Shops whose spec.secrets name it.
 * PrometheusRules and PodMonitors only once watchMonitoringKinds() says they are served: their CRDs may be missing.
 */
export function watchShops(options: ShopWatchOptions): ShopWatches {
  const watch = <T extends KubernetesObject>(
    apiVersion: string,
    kind: string,
    plural: string,
    toKey: (object: T) => string | undefined,
    labelSelector?: string,
  ) => startWatch<T>(options, { apiVersion, kind, plural, labelSelector }, toKey);
  const shops = watch<Shop>(SHOP_API_VERSION, SHOP_API.kind, SHOP_API.plural, shopKeyOf);
  /** The watches of the owned objects, by kind. */
  const owned = new Map<string, RunningWatch<KubernetesObject>>();
  const watchOwned = (apiVersion: string, kind: string, plural: string) =>
    void owned.set(kind, watch(apiVersion, kind, plural, controllingShopKey, MANAGED_BY_SELECTOR));
  watchOwned('batch/v1', 'Job', 'jobs');
  watchOwned('apps/v1', 'Deployment', 'deployments');
  watchOwned('v1', 'Service', 'services');
  watchOwned('v1', 'ConfigMap', 'configmaps');
  watchOwned('policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets');
  watchOwned('autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers');
  watchOwned('networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies');
  const others = [
    ...(options.secretNamespaces?.map((namespace) => watchReferencedSecrets({ ...options, namespace }, () => shops.informer.list())) ?? [
      watchReferencedSecrets(options, () => shops.informer.list()),
    ]),
    watchShopPods(options),
  ];
  // Readiness does not wait for the monitoring kinds: without their cache, the monitoring step applies.
  const awaited = [shops, ...owned.values(), ...others];
  let stopped = false;
  return {
    shopKeys: () => shops.informer.list().flatMap((shop) => shopKeyOf(shop) ?? []),
    unsynced: () => awaited.filter((running) => !running.synced()).map((running) => running.kind),
    cached: (object) => owned.get(object.kind)?.informer.get(object.metadata.name, object.metadata.namespace),
    watchMonitoringKinds: (served) => {
      if (stopped) return; // a pass still running as the controller stops
      for (const { kind, plural } of MONITORING_KINDS) {
        const running = owned.get(kind);
        if (served.has(kind) && !running) watchOwned(MONITORING_API_VERSION, kind, plural);
        if (!served.has(kind) && running) {
          owned.delete(kind);
          void running.stop();
        }
      }
    },
    stop: async () => {
      stopped = true;
      await Promise.all([shops, ...owned.values(), ...others].map((running) => running.stop()));
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

/**
 * Secrets, by their metadata only: a changed value changes the resourceVersion, which is all an event
 * needs to bring a pass (the pass reads the Secret), and the cache holds no Secret's data. Every Shop
 * in the Secret's namespace whose spec.secrets names it gets a pass.
 */
function watchReferencedSecrets(options: ShopWatchOptions, shops: () => readonly Shop[]): RunningWatch<KubernetesObject> {
  const referencing = (secret: KubernetesObject): string[] =>
    shops()
      .filter(
        (shop) =>
          shop.metadata?.namespace === secret.metadata?.namespace &&
          Object.values(shop.spec.secrets).some((reference) => reference?.name === secret.metadata?.name),
      )
      .flatMap((shop) => shopKeyOf(shop) ?? []);
  return startWatch(
    options,
    { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', labelSelector: undefined, metadataOnly: true },
    referencing,
  );
}

/**
 * The KubeConfig with every request to `path` (its list and its watch) asking for PartialObjectMetadata:
 * the API server then sends each object's metadata alone.
 */
function metadataOnly(kubeConfig: KubeConfig, path: string): KubeConfig {
  const wrapped = Object.create(kubeConfig) as KubeConfig;
  wrapped.applySecurityAuthentication = async (context) => {
    await kubeConfig.applySecurityAuthentication(context);
    const url = new URL(context.getUrl());
    if (url.pathname !== path) return;
    const as = url.searchParams.get('watch') === 'true' ? 'PartialObjectMetadata' : 'PartialObjectMetadataList';
    context.setHeaderParam('Accept', `application/json;as=${as};g=meta.k8s.io;v=v1`);
  };
  return wrapped;
}

interface WatchedKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly labelSelector: string | undefined;
  /** Objects as metadata only (PartialObjectMetadata). */
  readonly metadataOnly?: boolean;
}

interface RunningWatch<T extends KubernetesObject> {
  readonly informer: Informer<T> & ObjectCache<T>;
  readonly kind: string;
  /** Whether the first list arrived (a restarted watch keeps its cache). */
  synced(): boolean;
  stop(): Promise<void>;
}

/** An informer (list, then watch from its resourceVersion) that starts again with backoff when it fails. */
function startWatch<T extends KubernetesObject>(
  options: ShopWatchOptions,
  watched: WatchedKind,
  toKey: (object: T) => string | readonly string[] | undefined,
): RunningWatch<T> {
  const { apiVersion, kind, plural, labelSelector } = watched;
  const group = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const path = options.namespace ? `${group}/namespaces/${options.namespace}/${plural}` : `${group}/${plural}`;
  const kubeConfig = watched.metadataOnly ? metadataOnly(options.kubeConfig, path) : options.kubeConfig;
  const objects = watched.metadataOnly ? KubernetesObjectApi.makeApiClient(kubeConfig) : options.clients.objects;
  let listed = false;
  const list = async () => {
    const objectList = (await objects.list<T>(
      apiVersion,
      kind,
      options.namespace,
      undefined,
      undefined,
      undefined,
      undefined,
      labelSelector,
    )) as KubernetesListObject<T>;
    listed = true;
    return objectList;
  };
  const informer = makeInformer<T>(kubeConfig, path, list, labelSelector);

  let stopped = false;
  let failures = 0;
  let restart: NodeJS.Timeout | undefined;
  const onObject = (object: T) => {
    failures = 0;
    for (const key of [toKey(object) ?? []].flat()) options.enqueue(key);
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
    kind,
    synced: () => listed,
    stop: async () => {
      stopped = true;
      clearTimeout(restart);
      await informer.stop();
    },
  };
}
