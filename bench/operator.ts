// The operator against a real kube-apiserver (kine underneath), with nothing else running: this file
// plays the kubelet and the Job and Deployment controllers (the "fake kubelet"), completing each
// migration Job and making each Deployment available as soon as its watch event arrives.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { GENERATED_KEYS, generatedKeysSecretName, renderShop, type KubeObject, type ShopManifests } from '@shop/cdk8s';
import { MANAGED_BY_SELECTOR, managedFor, ownedManifests } from '../operator/src/kube/ownership.ts';
import { CONDITION_TYPES, type ConditionReport, type ConditionType } from '../operator/src/reconcile/conditions.ts';
import { nextStatus } from '../operator/src/reconcile/status.ts';
import { SHOP_API_VERSION, shopKey, type StoredShop } from '../operator/src/shop-resource.ts';
import { createReferencedSecrets, shopManifest, shopsPath } from '../operator/test/support/shops.ts';
import { expectStatus, startTestCluster, type TestCluster } from '../operator/test/support/test-cluster.ts';

const OPERATOR_MAIN = new URL('../operator/src/main.ts', import.meta.url).pathname;
const TAG = '1.0.0';
const ONE_SHOP_TARGET_S = 2;
const FIFTY_SHOPS_TARGET_S = 30;
const RSS_TARGET_MB = 200;
/**
 * The fake kubelet's time on a Shop's critical path (watch event to status written, for its Job, its api
 * and the slower of worker and consumer) over the Shop's time to Ready: it must not be what is measured.
 */
const KUBELET_SHARE_TARGET = 0.1;
const SHOPS = Number(process.env.BENCH_SHOPS ?? 50);
const NAMESPACES = 5;
const ONE_SHOP_SAMPLES = 3;
const READY_TIMEOUT_MS = 180_000;
const START_TIMEOUT_MS = 60_000;

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'operator', ...figure })}\n`);
}

/** Diagnostics, not figures: stderr, so stdout stays one JSON line per figure. */
function note(message: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`[bench operator] ${message}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''}\n`);
}

const seconds = (ms: number) => Math.round(ms / 10) / 100;
const round1 = (value: number) => Math.round(value * 10) / 10;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

// ---------------------------------------------------------------------------------------------------
// Watches: LIST, then WATCH from the list's resourceVersion, one JSON event per line.

interface Meta {
  name: string;
  namespace: string;
  uid: string;
  generation?: number;
  resourceVersion: string;
  labels?: Record<string, string>;
}
interface Watched {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; phase?: string; conditions?: Array<{ type: string; status: string }> };
}
interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Watched;
}

interface RunningWatch {
  /** Set when the watch ended or failed before stop(): the waits give up instead of hanging. */
  failure(): Error | undefined;
  stop(): Promise<void>;
}

/** Resolves once the watch is established (the server answered its headers), so nothing created later is missed. */
async function watchCollection(cluster: TestCluster, path: string, labelSelector: string | undefined, onEvent: (event: WatchEvent) => void): Promise<RunningWatch> {
  const query = new URLSearchParams(labelSelector ? { labelSelector } : {});
  let list = await cluster.kube<{ metadata: { resourceVersion: string }; items: Watched[] }>('GET', `${path}?${query}`);
  // A CRD established a moment ago may still answer 429 "storage is (re)initializing".
  for (let attempt = 1; list.status === 429 && attempt < 30; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    list = await cluster.kube('GET', `${path}?${query}`);
  }
  expectStatus(list, 200);
  for (const object of list.body.items) onEvent({ type: 'ADDED', object });
  query.set('watch', 'true');
  query.set('resourceVersion', list.body.metadata.resourceVersion);
  const abort = new AbortController();
  const response = await fetch(new URL(`${path}?${query}`, cluster.server.url), {
    headers: { authorization: `Bearer ${cluster.server.token}`, accept: 'application/json' },
    signal: abort.signal,
  });
  if (!response.ok || !response.body) throw new Error(`WATCH ${path}: HTTP ${response.status}`);
  const body = response.body;
  let failure: Error | undefined;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim() === '') continue;
          const event = JSON.parse(line) as WatchEvent;
          if (event.type === 'ERROR') throw new Error(`WATCH ${path}: ${JSON.stringify(event.object)}`);
          onEvent(event);
        }
      }
      if (!abort.signal.aborted) failure = new Error(`WATCH ${path} ended`);
    } catch (error) {
      if (!abort.signal.aborted) failure = error instanceof Error ? error : new Error(String(error));
    }
  })();
  return {
    failure: () => failure,
    stop: async () => {
      abort.abort();
      await reading;
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// The fake kubelet: completes every migration Job and makes every Deployment available, at once. The
// tests run the real controllers and a node agent (test/infra/kube-cluster.ts); here they would be
// what is measured, so the benchmark's API server runs none and this writes their statuses instead.

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** The status the Job controller writes when the Job's one pod has succeeded. */
function completedJobStatus(): Record<string, unknown> {
  return {
    startTime: now(),
    completionTime: now(),
    succeeded: 1,
    conditions: [
      { type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: now() },
      { type: 'Complete', status: 'True', lastTransitionTime: now() },
    ],
  };
}

/** The status the Deployment controller writes once every replica of the current generation is updated and available. */
function availableDeploymentStatus(deployment: { metadata: { generation?: number }; spec?: { replicas?: number } }): Record<string, unknown> {
  const replicas = deployment.spec?.replicas ?? 1;
  return {
    observedGeneration: deployment.metadata.generation,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.', lastUpdateTime: now(), lastTransitionTime: now() }],
  };
}

interface KubeletRecord {
  readonly kind: 'Job' | 'Deployment';
  readonly namespace: string;
  readonly name: string;
  /** When the watch first showed the object needing a status (performance.now()). */
  readonly seenAt: number;
  /** When its status write succeeded. */
  doneAt?: number;
}

interface FakeKubelet {
  readonly records: ReadonlyMap<string, KubeletRecord>;
  /** Status writes, conflicts and reads included: the benchmark's own API requests. */
  requests(): number;
  failure(): Error | undefined;
  stop(): Promise<void>;
}

const isTrue = (object: Watched, type: string) => object.status?.conditions?.some((condition) => condition.type === type && condition.status === 'True') ?? false;
const jobDone = (job: Watched) => isTrue(job, 'Complete');
const deploymentDone = (deployment: Watched) => deployment.status?.observedGeneration === deployment.metadata.generation && isTrue(deployment, 'Available');

async function startFakeKubelet(cluster: TestCluster): Promise<FakeKubelet> {
  const records = new Map<string, KubeletRecord>();
  const writing = new Set<string>();
  const pending = new Set<Promise<void>>();
  let requests = 0;
  let failure: Error | undefined;

  const kinds = {
    Job: { path: (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs`, done: jobDone, status: () => completedJobStatus() },
    Deployment: { path: (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`, done: deploymentDone, status: availableDeploymentStatus },
  } as const;

  /** PUT the status on the watched object; on a conflict read it again and retry (the operator applied it meanwhile). */
  const write = async (kind: keyof typeof kinds, key: string, watched: Watched): Promise<void> => {
    const { path, status } = kinds[kind];
    const objectPath = `${path(watched.metadata.namespace)}/${watched.metadata.name}`;
    let object = watched;
    for (let attempt = 1; ; attempt += 1) {
      requests += 1;
      const reply = await cluster.kube('PUT', `${objectPath}/status`, { ...object, status: status(object as Parameters<typeof availableDeploymentStatus>[0]) });
      if (reply.status === 200) break;
      if (reply.status !== 409 || attempt === 5) throw new Error(`PUT ${objectPath}/status: HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
      requests += 1;
      const current = await cluster.kube<Watched>('GET', objectPath);
      expectStatus(current, 200);
      object = current.body;
    }
    const record = records.get(key);
    if (record && record.doneAt === undefined) record.doneAt = performance.now();
  };

  const handle = (kind: keyof typeof kinds) => (event: WatchEvent) => {
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
    const { namespace, name } = event.object.metadata;
    const key = `${kind}/${namespace}/${name}`;
    if (kinds[kind].done(event.object)) return;
    if (!records.has(key)) records.set(key, { kind, namespace, name, seenAt: performance.now() });
    // A write under way re-reads on a conflict; our own write's event brings another look if it was not enough.
    if (writing.has(key)) return;
    writing.add(key);
    const done: Promise<void> = write(kind, key, event.object)
      .catch((error: unknown) => void (failure ??= error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        writing.delete(key);
        pending.delete(done);
      });
    pending.add(done);
  };

  const jobs = await watchCollection(cluster, '/apis/batch/v1/jobs', MANAGED_BY_SELECTOR, handle('Job'));
  const deployments = await watchCollection(cluster, '/apis/apps/v1/deployments', MANAGED_BY_SELECTOR, handle('Deployment'));
  return {
    records,
    requests: () => requests,
    failure: () => failure ?? jobs.failure() ?? deployments.failure(),
    stop: async () => {
      await Promise.all([jobs.stop(), deployments.stop()]);
      await Promise.all(pending);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Shops: when each one is first seen Ready for its current generation.

interface ShopWatcher {
  readonly readyAt: ReadonlyMap<string, number>;
  /** Resolves once every key is Ready; throws with the stragglers' phases on the deadline. */
  allReady(keys: readonly string[], failures: () => Error | undefined): Promise<void>;
  stop(): Promise<void>;
}

async function watchShops(cluster: TestCluster): Promise<ShopWatcher> {
  const readyAt = new Map<string, number>();
  const phases = new Map<string, string>();
  const running = await watchCollection(cluster, `/apis/${SHOP_API_VERSION}/shops`, undefined, (event) => {
    const { metadata, status } = event.object;
    const key = shopKey(metadata.namespace, metadata.name);
    phases.set(key, `${status?.phase ?? '(no status)'}${status?.phase === 'Ready' ? '' : `: ${JSON.stringify((status as { message?: string } | undefined)?.message)}`}`);
    if (status?.phase === 'Ready' && status.observedGeneration === metadata.generation && !readyAt.has(key)) readyAt.set(key, performance.now());
  });
  return {
    readyAt,
    allReady: async (keys, failures) => {
      const deadline = performance.now() + READY_TIMEOUT_MS;
      while (!keys.every((key) => readyAt.has(key))) {
        const failure = failures() ?? running.failure();
        if (failure) throw failure;
        if (performance.now() > deadline) {
          const stragglers = keys.filter((key) => !readyAt.has(key)).map((key) => `${key}: ${phases.get(key) ?? '(not seen)'}`);
          throw new Error(`${stragglers.length} Shops not Ready after ${READY_TIMEOUT_MS / 1000} s: ${stragglers.slice(0, 5).join('; ')}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    stop: () => running.stop(),
  };
}

// ---------------------------------------------------------------------------------------------------
// The operator as `npm run operator` runs it, in its own process.

interface OperatorProcess {
  readonly pid: number;
  readonly metricsPort: number;
  /** The Node flags it runs with (it starts again with the container's heap outside a container) and V8's heap limit. */
  readonly heap: { readonly nodeFlags: string; readonly limitMb: number };
  /** WARNING and ERROR lines it logged (e.g. failed passes). */
  warnings(): string[];
  /** Set once the process exited before stop(). */
  failure(): Error | undefined;
  stop(): Promise<void>;
}

async function startOperatorProcess(cluster: TestCluster): Promise<OperatorProcess> {
  const env = {
    PATH: process.env.PATH ?? '',
    KUBECONFIG: cluster.server.kubeconfigPath(),
    METRICS_PORT: '0',
    LEADER_ELECTION: 'false',
    POD_NAME: 'bench-operator',
  };
  // BENCH_OPERATOR_NODE_ARGS: Node flags for the operator only, e.g. `--max-old-space-size=64` or `--trace-gc`.
  const nodeArgs = (process.env.BENCH_OPERATOR_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, OPERATOR_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = once(child, 'exit');
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const warnings: string[] = [];
  let stopping = false;
  let failure: Error | undefined;
  void exit.then(([code, signal]) => {
    if (!stopping) failure = new Error(`the operator exited (${code ?? signal}): ${stderr}`);
  });
  const lastLines: string[] = [];
  const started = new Promise<Pick<OperatorProcess, 'metricsPort' | 'heap'>>((resolve, reject) => {
    // Without a deadline a missed line would wait forever, printing nothing (it did, when the log's
    // message key changed from `message` to pino's `msg`).
    const deadline = setTimeout(() => {
      reject(new Error(`the operator logged no "started" line within ${START_TIMEOUT_MS / 1000} s; its last output:\n${[...lastLines, stderr].join('\n')}`));
    }, START_TIMEOUT_MS);
    void exit.then(() => clearTimeout(deadline));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lastLines.push(line);
      if (lastLines.length > 20) lastLines.shift();
      let entry: { level?: string; msg?: string; metricsPort?: number; nodeFlags?: string; heapLimitMb?: number };
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.msg === 'started' && typeof entry.metricsPort === 'number') {
        clearTimeout(deadline);
        resolve({ metricsPort: entry.metricsPort, heap: { nodeFlags: entry.nodeFlags ?? '', limitMb: entry.heapLimitMb ?? Number.NaN } });
      }
      if (entry.level !== 'INFO') warnings.push(line);
    });
    void exit.then(([code, signal]) => reject(new Error(`the operator exited (${code ?? signal}) before it started: ${stderr}`)));
  });
  const stop = async () => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(killer);
  };
  try {
    return { pid: child.pid as number, ...(await started), warnings: () => [...warnings, ...(stderr ? [stderr] : [])], failure: () => failure, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** VmHWM (peak resident set) and VmRSS of a process, in MB. */
async function memoryMb(pid: number): Promise<{ peak: number; now: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
  return { peak: Math.round(kb('VmHWM') / 1024), now: Math.round(kb('VmRSS') / 1024) };
}

/** Sockets the process holds open: one per connection to the API server, plus its listeners. */
async function openSockets(pid: number): Promise<number> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return links.filter((link) => link.startsWith('socket:')).length;
}

/** Prometheus samples by full name (labels included), e.g. `shop_operator_reconcile_total{result="success"}`. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const space = line.lastIndexOf(' ');
    found.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return found;
}

async function operatorSamples(operator: OperatorProcess): Promise<Map<string, number>> {
  return samples(await (await fetch(`http://127.0.0.1:${operator.metricsPort}/metrics`)).text());
}

/** The API server's request counter, by verb, resource and subresource; watches (long-lived) and its own requests excluded. */
async function apiRequests(cluster: TestCluster): Promise<Map<string, number>> {
  const reply = await cluster.kube<string>('GET', '/metrics');
  const byKind = new Map<string, number>();
  for (const [sample, value] of samples(reply.body)) {
    if (!sample.startsWith('apiserver_request_total{')) continue;
    const label = (name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(sample)?.[1] ?? '';
    if (label('verb') === 'WATCH') continue;
    // The API server's own: ClusterIP allocation for a new Service, its leases.
    if (label('resource') === 'ipaddresses' || label('resource') === 'leases') continue;
    const key = `${label('verb')} ${label('resource')}${label('subresource') ? `/${label('subresource')}` : ''}`;
    byKind.set(key, (byKind.get(key) ?? 0) + value);
  }
  return byKind;
}

function requestsSince(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): { total: number; byKind: Record<string, number> } {
  const byKind: Record<string, number> = {};
  let total = 0;
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta <= 0) continue;
    byKind[key] = delta;
    total += delta;
  }
  return { total, byKind: Object.fromEntries(Object.entries(byKind).sort(([, a], [, b]) => b - a)) };
}

// ---------------------------------------------------------------------------------------------------
// The runs.

interface Context {
  readonly cluster: TestCluster;
  readonly shops: ShopWatcher;
  /** The kubelet's or the operator's failure: the waits stop at once instead of at their deadline. */
  readonly failure: () => Error | undefined;
}

/** Namespaces with the Secrets the Shops reference, `shops` Shop names spread over them. */
async function prepare(cluster: TestCluster, prefix: string, namespaces: number, shops: number): Promise<Array<{ namespace: string; name: string }>> {
  const created: string[] = [];
  for (let i = 0; i < namespaces; i += 1) {
    const namespace = await cluster.namespace(prefix);
    await createReferencedSecrets(cluster.kube, namespace);
    created.push(namespace);
  }
  return Array.from({ length: shops }, (_, i) => ({ namespace: created[i % namespaces] as string, name: `shop-${i + 1}` }));
}

/** Creates the Shops at once and resolves with the time until all are Ready, and each one's. */
async function createAndWait(context: Context, shops: ReadonlyArray<{ namespace: string; name: string }>): Promise<{ totalMs: number; eachMs: number[]; startedAt: number }> {
  const { cluster } = context;
  const startedAt = performance.now();
  await Promise.all(shops.map(async ({ namespace, name }) => expectStatus(await cluster.kube('POST', shopsPath(namespace), shopManifest(name, TAG)), 201)));
  const keys = shops.map(({ namespace, name }) => shopKey(namespace, name));
  await context.shops.allReady(keys, context.failure);
  const eachMs = keys.map((key) => (context.shops.readyAt.get(key) as number) - startedAt);
  return { totalMs: Math.max(...eachMs), eachMs, startedAt };
}

/** Every child of every Shop exists: checked after the clock stopped. */
async function expectChildren(cluster: TestCluster, shops: ReadonlyArray<{ namespace: string; name: string }>): Promise<void> {
  const perNamespace = new Map<string, number>();
  for (const { namespace } of shops) perNamespace.set(namespace, (perNamespace.get(namespace) ?? 0) + 1);
  const collections = { jobs: 'apis/batch/v1', deployments: 'apis/apps/v1', services: 'api/v1', poddisruptionbudgets: 'apis/policy/v1', configmaps: 'api/v1', secrets: 'api/v1' };
  const expected: Record<keyof typeof collections, number> = { jobs: 1, deployments: 3, services: 1, poddisruptionbudgets: 1, configmaps: 1, secrets: 1 };
  for (const [namespace, count] of perNamespace) {
    for (const [plural, group] of Object.entries(collections) as Array<[keyof typeof collections, string]>) {
      const reply = await cluster.kube<{ items: unknown[] }>('GET', `/${group}/namespaces/${namespace}/${plural}?labelSelector=${encodeURIComponent(MANAGED_BY_SELECTOR)}`);
      expectStatus(reply, 200);
      if (reply.body.items.length !== expected[plural] * count) {
        throw new Error(`${namespace}: ${reply.body.items.length} ${plural}, expected ${expected[plural] * count}`);
      }
    }
  }
}

/** When each child of one Shop needed the kubelet and got its status, in ms from the Shop's creation. */
function timeline(kubelet: FakeKubelet, namespace: string, startedAt: number, readyAt: number): Record<string, number> {
  const points: Record<string, number> = {};
  for (const record of kubelet.records.values()) {
    if (record.namespace !== namespace) continue;
    const what = record.kind === 'Job' ? 'job' : record.name.slice(record.name.lastIndexOf('-') + 1);
    points[`${what}_created`] = Math.round(record.seenAt - startedAt);
    if (record.doneAt !== undefined) points[`${what}_available`] = Math.round(record.doneAt - startedAt);
  }
  points.shop_ready = Math.round(readyAt - startedAt);
  return Object.fromEntries(Object.entries(points).sort(([, a], [, b]) => a - b));
}

/**
 * The fake kubelet's time on each Shop's critical path (its Job, then its api, then the slower of worker
 * and consumer: from the watch event to the status written), as a share of the Shop's time to Ready.
 */
function kubeletShares(kubelet: FakeKubelet, shops: ReadonlyArray<{ namespace: string; name: string }>, startedAt: number, readyAt: ReadonlyMap<string, number>): number[] {
  const latency = new Map<string, Map<string, number>>();
  for (const record of kubelet.records.values()) {
    if (record.doneAt === undefined) continue;
    const migrate = record.name.indexOf('-migrate-');
    const shop = record.kind === 'Job' ? record.name.slice(0, migrate) : record.name.slice(0, record.name.lastIndexOf('-'));
    const component = record.kind === 'Job' ? 'job' : record.name.slice(record.name.lastIndexOf('-') + 1);
    const key = shopKey(record.namespace, shop);
    if (!latency.has(key)) latency.set(key, new Map());
    latency.get(key)?.set(component, record.doneAt - record.seenAt);
  }
  return shops.map(({ namespace, name }) => {
    const key = shopKey(namespace, name);
    const of = (component: string) => latency.get(key)?.get(component) ?? 0;
    const onPath = of('job') + of('api') + Math.max(of('worker'), of('consumer'));
    return onPath / ((readyAt.get(key) as number) - startedAt);
  });
}

// ---------------------------------------------------------------------------------------------------
// The baseline: the same objects and statuses, written by this process with plain requests, no operator.

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
 * One Shop, in the order the operator writes it and with the status writes the kubelet does: the Shop,
 * its keys Secret, ConfigMap, Job (then its status), api Deployment, Service and PDB (then the
 * Deployment's status), worker and consumer (then theirs), and the Shop's Ready status. 13 requests.
 */
async function writeShopDirectly(cluster: TestCluster, namespace: string, name: string, rendered: ShopManifests): Promise<void> {
  const post = async <T extends Watched>(path: string, body: unknown): Promise<T> => {
    const reply = await cluster.kube<T>('POST', path, body);
    expectStatus(reply, 201);
    return reply.body;
  };
  const create = (object: KubeObject) => post<Watched>(collectionPath(object), object);
  const putStatus = async (path: string, object: Watched, status: Record<string, unknown>) =>
    expectStatus(await cluster.kube('PUT', `${path}/${object.metadata.name}/status`, { ...object, status }), 200);

  const shop = await post<Watched & StoredShop>(shopsPath(namespace), shopManifest(name, TAG));
  const manifests = ownedManifests(shop, rendered);
  await create(
    managedFor(shop, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: generatedKeysSecretName(name) },
      type: 'Opaque',
      stringData: { [GENERATED_KEYS.secretKey]: randomBytes(48).toString('base64url'), [GENERATED_KEYS.secretsMasterKey]: randomBytes(32).toString('base64') },
    }),
  );
  await create(manifests.configMap);
  const job = await create(manifests.migrationJob);
  await putStatus(collectionPath(manifests.migrationJob), job, completedJobStatus());
  const api = await create(manifests.api.deployment);
  await create(manifests.api.service);
  await create(manifests.api.disruptionBudget);
  await putStatus(collectionPath(manifests.api.deployment), api, availableDeploymentStatus(api));
  const worker = await create(manifests.worker.deployment);
  const consumer = await create(manifests.consumer.deployment);
  await putStatus(collectionPath(manifests.worker.deployment), worker, availableDeploymentStatus(worker));
  await putStatus(collectionPath(manifests.consumer.deployment), consumer, availableDeploymentStatus(consumer));
  const allTrue = new Map<ConditionType, ConditionReport>(CONDITION_TYPES.map((type) => [type, { status: 'True', reason: 'Ready', message: `${type} of ${TAG}` }]));
  const status = nextStatus(undefined, { generation: shop.metadata.generation, phase: 'Ready', message: `the api, worker and consumer of ${TAG} are available`, migratedVersion: TAG, conditions: allTrue }, new Date());
  expectStatus(await cluster.kube('PUT', `${shopsPath(namespace)}/${name}/status`, { ...shop, status }), 200);
}

async function baseline(cluster: TestCluster, shops: ReadonlyArray<{ namespace: string; name: string }>): Promise<number> {
  // Rendering is the operator's work, not an API write: done before the clock starts.
  const rendered = shops.map(({ name }) => renderShop(shopManifest(name, TAG)));
  const started = performance.now();
  await Promise.all(shops.map(({ namespace, name }, i) => writeShopDirectly(cluster, namespace, name, rendered[i] as ShopManifests)));
  return performance.now() - started;
}

// ---------------------------------------------------------------------------------------------------

export async function benchOperator(): Promise<void> {
  const cluster = await startTestCluster({ bare: true });
  let operator: OperatorProcess | undefined;
  let kubelet: FakeKubelet | undefined;
  let shops: ShopWatcher | undefined;
  try {
    kubelet = await startFakeKubelet(cluster);
    shops = await watchShops(cluster);
    const singles = await prepare(cluster, 'one', 1 + ONE_SHOP_SAMPLES, 1 + ONE_SHOP_SAMPLES);
    const fifty = await prepare(cluster, 'fifty', NAMESPACES, SHOPS);
    const direct = await prepare(cluster, 'baseline', NAMESPACES, SHOPS);

    operator = await startOperatorProcess(cluster);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // its informers' first lists
    const idle = await memoryMb(operator.pid);
    const heap = operator.heap;
    note('operator started', { pid: operator.pid, metricsPort: operator.metricsPort, rssMb: idle.now, ...heap });
    const running = { kubelet, operator };
    const context: Context = { cluster, shops, failure: () => running.kubelet.failure() ?? running.operator.failure() };

    // (1) One Shop at a time. The first after the operator started pays for its informers' first list
    // and a cold JIT; the figure is the median of the ones after it, as a long-running operator sees them.
    const onesMs: number[] = [];
    const oneShares: number[] = [];
    let oneTimeline: Record<string, number> = {};
    for (const shop of singles) {
      const run = await createAndWait(context, [shop]);
      onesMs.push(run.totalMs);
      oneShares.push(...kubeletShares(kubelet, [shop], run.startedAt, shops.readyAt));
      oneTimeline = timeline(kubelet, shop.namespace, run.startedAt, run.startedAt + run.totalMs);
    }
    await expectChildren(cluster, singles);
    const [firstMs, ...warmMs] = onesMs as [number, ...number[]];
    const oneS = seconds(percentile(warmMs, 50));
    emit({
      figure: 'one_shop_create_to_ready_s',
      value: oneS,
      target: `< ${ONE_SHOP_TARGET_S}`,
      meets_goal: oneS < ONE_SHOP_TARGET_S,
      samples_s: warmMs.map(seconds),
      first_after_start_s: seconds(firstMs),
      last_timeline_ms: oneTimeline,
    });

    // (2) SHOPS Shops created at once.
    const metricsBefore = await operatorSamples(operator);
    const requestsBefore = await apiRequests(cluster);
    const kubeletRequestsBefore = kubelet.requests();
    const loadBefore = loadavg()[0] as number;
    const benchCpuBefore = process.cpuUsage();
    const run = await createAndWait(context, fifty);
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const fiftyShares = kubeletShares(kubelet, fifty, run.startedAt, shops.readyAt);
    note('operator sockets open at the end of the run', { sockets: await openSockets(operator.pid) });
    const requestsAfter = await apiRequests(cluster);
    const metricsAfter = await operatorSamples(operator);
    const memory = await memoryMb(operator.pid);
    await expectChildren(cluster, fifty);

    // Requests by the operator alone: all of them minus the Shops' creation and the kubelet's status writes.
    const requests = requestsSince(requestsBefore, requestsAfter);
    const benchRequests = SHOPS + (kubelet.requests() - kubeletRequestsBefore);
    const delta = (sample: string) => (metricsAfter.get(sample) ?? 0) - (metricsBefore.get(sample) ?? 0);
    const passes = delta('shop_operator_reconcile_total{result="success"}') + delta('shop_operator_reconcile_total{result="error"}');
    const passSeconds = delta('shop_operator_reconcile_duration_seconds_sum');
    const cpuSeconds = delta('process_cpu_seconds_total');
    note(`${SHOPS} Shops: API requests during the run by verb and resource (operator + ${benchRequests} by the benchmark)`, requests.byKind);

    await operator.stop();
    const warnings = operator.warnings();
    operator = undefined;
    if (warnings.length > 0) note(`the operator logged ${warnings.length} warnings`, { first: warnings.slice(0, 3) });

    // The baseline, in the same run and API server, with the operator and the kubelet stopped.
    await kubelet.stop();
    kubelet = undefined;
    const baselineBefore = await apiRequests(cluster);
    const baselineMs = await baseline(cluster, direct);
    const baselineRequests = requestsSince(baselineBefore, await apiRequests(cluster)).total;
    await expectChildren(cluster, direct);

    const fiftyS = seconds(run.totalMs);
    const ratio = Math.round((run.totalMs / baselineMs) * 10) / 10;
    emit({
      figure: 'baseline_raw_api_writes_s',
      value: seconds(baselineMs),
      target: null,
      meets_goal: null,
      what: `the same ${SHOPS} Shops' objects and statuses written directly, ${SHOPS} Shops concurrently, no operator`,
      api_requests_per_shop: round1(baselineRequests / SHOPS),
    });
    emit({
      figure: `${SHOPS}_shops_create_to_all_ready_s`,
      value: fiftyS,
      target: `< ${FIFTY_SHOPS_TARGET_S}`,
      meets_goal: fiftyS < FIFTY_SHOPS_TARGET_S,
      ratio_to_baseline: ratio,
      per_shop_p50_s: seconds(percentile(run.eachMs, 50)),
      first_ready_s: seconds(Math.min(...run.eachMs)),
      passes_per_shop: round1(passes / SHOPS),
      mean_pass_ms: Math.round((passSeconds / Math.max(1, passes)) * 1000),
      operator_cpu_s: round1(cpuSeconds),
      operator_api_requests_per_shop: round1((requests.total - benchRequests) / SHOPS),
      // The operator, kube-apiserver, kine and this process share the host: a busy one slows every figure.
      host: { cpus: availableParallelism(), load_avg_1m_before: round1(loadBefore) },
    });
    emit({
      figure: 'operator_peak_rss_mb',
      value: memory.peak,
      target: `< ${RSS_TARGET_MB}`,
      meets_goal: memory.peak < RSS_TARGET_MB,
      rss_after_start_mb: idle.now,
      rss_at_end_mb: memory.now,
      node_flags: heap.nodeFlags,
      heap_limit_mb: heap.limitMb,
    });

    // The fake kubelet must not be what the figures measure: its share of each Shop's time to Ready.
    const latencies = [...running.kubelet.records.values()].flatMap((record) => (record.doneAt === undefined ? [] : [record.doneAt - record.seenAt]));
    const share = Math.round(Math.max(percentile(oneShares, 50), percentile(fiftyShares, 50)) * 1000) / 1000;
    emit({
      figure: 'fake_kubelet_share_of_time_to_ready',
      value: share,
      target: `< ${KUBELET_SHARE_TARGET}`,
      meets_goal: share < KUBELET_SHARE_TARGET,
      one_shop_share: Math.round(percentile(oneShares, 50) * 1000) / 1000,
      shops_share: Math.round(percentile(fiftyShares, 50) * 1000) / 1000,
      status_write_p50_ms: Math.round(percentile(latencies, 50)),
      status_write_p99_ms: Math.round(percentile(latencies, 99)),
      objects: latencies.length,
      bench_process_cpu_s: round1((benchCpu.user + benchCpu.system) / 1e6),
    });
  } finally {
    await operator?.stop();
    await kubelet?.stop().catch(() => {});
    await shops?.stop().catch(() => {});
    await cluster.dispose();
  }
}
