// A Shop seen running end to end, as a platform team runs one: the operator chart installed with
// Helm, its pod run from the built shop/operator image; a Shop naming the built shop/platform image,
// whose migration Job, seed Job, api, worker and consumer run for real as processes of that image
// (the node agent's real-process mode, test/infra/pods), on the real PostgreSQL, Redis, Kafka and
// Temporal of the test run. A customer orders through the api pod's port, the consumer pod handles
// the event, the worker pod runs the order's workflow; a key rotation rolls every pod onto the new
// keys with every stored secret still readable; deleting the Shop stops every process.
//
// Each pod has a network and an address of its own (test/infra/pods/pod-network.ts), whose
// 127.0.0.1 leads to the test servers' ports on the host; the test reaches a pod at its podIP.
import { readFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '@shop/runtime';
import { GENERATED_KEYS, generatedKeysSecretName } from '@shop/cdk8s';
import { workflowIds } from '@shop/domain/workflows';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { API, CONSUMER, WORKER } from '../../cdk8s/src/components.ts';
import { IMAGES } from '../../images/contents.ts';
import { buildImages } from '../../images/build/build-images.ts';
import { ROTATE_KEYS_ANNOTATION } from '../../operator/src/keys/rotation-policy.ts';
import { readShop, shopsPath, updateShop } from '../../operator/test/support/shops.ts';
import { helm, OPERATOR_CHART, valueArgs } from '../../charts/test/support/helm.ts';
import { loadConfig } from '../../services/platform/src/config/config.ts';
import { openDatabase, type Database } from '../../services/platform/src/db/database.ts';
import { createMetricsRegistry } from '../../services/platform/src/metrics/registry.ts';
import { masterKeyring } from '../../services/platform/src/secrets/keyring.ts';
import { readStoredSecret } from '../../services/platform/src/secrets/stored-secrets.ts';
import { BUILD_TIMEOUT_MS } from '../images/support/built-image.ts';
import { openContainer, type ImageContainer } from '../images/support/image-container.ts';
import { startKubeCluster, type KubeCluster } from '../infra/kube-cluster.ts';
import { createTestDatabase, createTestNamespace, type TestDatabase } from '../infra/isolation.ts';
import { openPodNetworks } from '../infra/pods/pod-network.ts';
import { isPortOpen } from '../infra/proc.ts';
import { eventually } from '../support/wait.ts';
import { graphqlCaller, placeGuestOrder, stockOneProduct, type StockedProduct } from './support/storefront-client.ts';

const VERSION = (JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const OPERATOR_NAMESPACE = 'shop-system';
const NAMESPACE = 'shops';
const SHOP = 'acme';
const ADMIN = { email: 'admin@acme.example', password: 'e2e-admin-password-1' };
const COMPONENTS = [API, WORKER, CONSUMER].map(({ component, http }) => ({ component, port: http.port }));
const OPERATOR_METRICS_PORT = 9090;
/** From a cold worker (it bundles its workflows at start) on 2 busy cores, the first rollout takes minutes. */
const ROLLOUT_TIMEOUT_MS = 8 * 60_000;

let cluster: KubeCluster;
const images: ImageContainer[] = [];
let database: TestDatabase;
/** The platform's view of the Shop's database, opened once the migration Job applied the schema. */
let platform: Database | undefined;
let temporalNamespace: string;

interface Pod {
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  status?: {
    phase?: string;
    podIP?: string;
    containerStatuses?: Array<{
      ready: boolean;
      restartCount: number;
      state: Record<string, { reason?: string; message?: string; exitCode?: number }>;
    }>;
  };
}

interface ShopStatus {
  phase?: string;
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
  keyRotation?: { phase?: string; currentKeyId?: string; rowsPerKeyId?: Record<string, number> };
}

const podsIn = async (namespace: string) =>
  (await cluster.kube<{ items: Pod[] }>('GET', `/api/v1/namespaces/${namespace}/pods`)).body.items;
const shopStatus = async (): Promise<ShopStatus> =>
  ((await readShop(cluster.kube, NAMESPACE, SHOP)) as { status?: ShopStatus }).status ?? {};

/** The pods of the api, the worker and the consumer, not being deleted. */
async function componentPods(): Promise<Pod[]> {
  const components = new Set<string>(COMPONENTS.map(({ component }) => component));
  return (await podsIn(NAMESPACE)).filter((pod) => components.has(componentOf(pod)) && !pod.metadata.deletionTimestamp);
}

const componentOf = (pod: Pod) => pod.metadata.labels?.['app.kubernetes.io/component'] ?? '';
/** The HTTP port the pod's component listens on. */
const portOfPod = (pod: Pod) => COMPONENTS.find(({ component }) => component === componentOf(pod))?.port ?? 0;

/** The api as a client reaches it: at its ready pod's address. */
async function apiUrl(): Promise<string> {
  const pod = (await componentPods()).find(
    (candidate) => componentOf(candidate) === API.component && candidate.status?.containerStatuses?.[0]?.ready,
  );
  if (!pod?.status?.podIP) throw new Error(`no ready api pod:\n${await describeCluster()}`);
  return `http://${pod.status.podIP}:${API.http.port}`;
}

/** The port of a test server's address (a URL or host:port): a pod reaches it at its own 127.0.0.1. */
const portOf = (address: string) => Number(/:(\d+)(?:\/|$)/.exec(address)?.[1]);

/** On a failure: where each pod and the Shop were, so the failure says why. */
async function describeCluster(): Promise<string> {
  const pods = [...(await podsIn(OPERATOR_NAMESPACE)), ...(await podsIn(NAMESPACE))];
  const lines = pods.map(
    (pod) =>
      `${pod.metadata.name}: ${pod.status?.phase} ${JSON.stringify(pod.status?.containerStatuses?.map((status) => ({ ready: status.ready, restarts: status.restartCount, state: status.state })))}`,
  );
  return [`Shop: ${JSON.stringify(await shopStatus().catch((error: unknown) => String(error)))}`, ...lines].join('\n');
}

async function createSecret(name: string, data: Record<string, string>): Promise<void> {
  const created = await cluster.kube('POST', `/api/v1/namespaces/${NAMESPACE}/secrets`, { metadata: { name }, stringData: data });
  if (created.status !== 201) throw new Error(`Secret ${name}: HTTP ${created.status}: ${JSON.stringify(created.body)}`);
}

/** A namespace under the restricted Pod Security Standard: every pod the charts and the operator make must pass it. */
async function createRestrictedNamespace(name: string): Promise<void> {
  const labels = { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' };
  const created = await cluster.kube('POST', '/api/v1/namespaces', { metadata: { name, labels } });
  if (created.status !== 201) throw new Error(`namespace ${name}: HTTP ${created.status}`);
}

beforeAll(async () => {
  const [built] = await Promise.all([
    buildImages((line) => console.log(`[image:build] ${line}`)),
    createTestDatabase('e2e_shop').then((created) => (database = created)),
    createTestNamespace('e2e_shop').then((created) => (temporalNamespace = created)),
  ]);
  const opened = new Map<string, ImageContainer>();
  for (const { image, archive, reference } of built) {
    const container = await openContainer(archive);
    images.push(container);
    opened.set(`${image.name}:${VERSION}`, container);
    opened.set(reference, container);
  }
  cluster = await startKubeCluster({
    processes: {
      hostPorts: [database.url, inject('redisUrl'), inject('kafkaBrokers'), inject('temporalAddress')].map(portOf),
      image: async (reference) => {
        const container = opened.get(reference);
        if (!container) throw new Error(`no image ${reference} on this node (built: ${IMAGES.map((image) => image.name).join(', ')})`);
        return container;
      },
    },
  });
  await createRestrictedNamespace(OPERATOR_NAMESPACE);
  await createRestrictedNamespace(NAMESPACE);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await platform?.close();
  await cluster?.dispose();
  await Promise.all(images.map((image) => image.dispose()));
  await database?.drop();
});

describe('a Shop on a cluster, end to end', () => {
  let product: StockedProduct;
  let accessToken: string;
  let orderId: string;

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') console.log(await describeCluster());
  });

  it('installs the operator chart, whose pod runs from the shop/operator image and takes the lead', async () => {
    // One replica: a second would wait for a second node (the chart spreads them).
    const values = { image: { repository: 'shop/operator', tag: VERSION }, replicas: 1, metrics: { port: OPERATOR_METRICS_PORT } };
    const installed = await helm([
      'install',
      'shop-operator',
      OPERATOR_CHART,
      '--namespace',
      OPERATOR_NAMESPACE,
      '--kubeconfig',
      cluster.server.kubeconfigPath(),
      ...valueArgs(values),
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const metrics = async () => {
      const address = (await podsIn(OPERATOR_NAMESPACE))[0]?.status?.podIP;
      return address ? (await fetch(`http://${address}:${OPERATOR_METRICS_PORT}/metrics`)).text() : '';
    };
    await eventually(async () => expect(await metrics()).toMatch(/^shop_operator_leader 1$/m), { timeoutMs: 120_000, intervalMs: 500 });
    await eventually(
      async () =>
        expect((await podsIn(OPERATOR_NAMESPACE))[0]?.status?.containerStatuses?.[0]).toMatchObject({ ready: true, restartCount: 0 }),
      { timeoutMs: 30_000, intervalMs: 500 },
    );
  }, 180_000);

  it(
    'migrates, seeds the first admin and runs the api, the worker and the consumer from the shop/platform image until the Shop is Ready',
    async () => {
      await createSecret('acme-database', { url: database.url });
      await createSecret('acme-cache', { url: inject('redisUrl') });
      await createSecret('acme-kafka', { 'bootstrap-servers': inject('kafkaBrokers') });
      await createSecret('acme-temporal', { address: inject('temporalAddress') });
      await createSecret('acme-admin', ADMIN);
      const shop = {
        apiVersion: 'shop.dev/v1alpha1',
        kind: 'Shop',
        metadata: { name: SHOP },
        spec: {
          image: { repository: 'shop/platform', tag: VERSION },
          api: { replicas: 1 },
          worker: { replicas: 1 },
          consumer: { replicas: 1 },
          config: { LOG_LEVEL: 'INFO', WORKFLOW_NAMESPACE: temporalNamespace },
          secrets: {
            databaseUrl: { name: 'acme-database', key: 'url' },
            cacheUrl: { name: 'acme-cache', key: 'url' },
            brokerAddress: { name: 'acme-kafka', key: 'bootstrap-servers' },
            workflowHost: { name: 'acme-temporal', key: 'address' },
          },
          seed: { adminSecretName: 'acme-admin' },
        },
      };
      const created = await cluster.kube('POST', shopsPath(NAMESPACE), shop);
      expect(created.status, JSON.stringify(created.body)).toBe(201);

      const status = await eventually(
        async () => {
          const current = await shopStatus();
          expect(current.phase).toBe('Ready');
          return current;
        },
        { timeoutMs: ROLLOUT_TIMEOUT_MS, intervalMs: 1000 },
      );
      expect(status.conditions?.find((condition) => condition.type === 'Degraded')?.status ?? 'False').toBe('False');
      // Every migration is applied by the Job's pod, and the api serves from its pod's port.
      platform = await openDatabase(
        loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url }),
        createLogger({ level: 'ERROR', service: 'test' }),
        createMetricsRegistry('e2e'),
      );
      const unfinished = await platform.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NULL',
      );
      expect(unfinished.rows[0]?.n).toBe(0);
      const ready = await fetch(`${await apiUrl()}/ready`);
      expect(ready.status, await ready.clone().text()).toBe(200);
      for (const pod of await componentPods()) expect(await isPortOpen(portOfPod(pod), pod.status?.podIP)).toBe(true);
    },
    ROLLOUT_TIMEOUT_MS + 30_000,
  );

  it('takes an order through the api pod; the consumer pod handles its event and the worker pod runs its workflow', async () => {
    const api = await apiUrl();
    ({ accessToken, product } = await stockOneProduct(api, ADMIN));
    await graphqlCaller(api, { accessToken })('mutation { setSecret(key: "e2e.partner_token", value: "kept-through-rotation") { keyId } }');
    const order = await placeGuestOrder(api, product);
    orderId = order.id;
    expect(order).toMatchObject({ status: expect.any(String), total: expect.any(String) });

    // The api's outbox puts the order's event on Kafka; the consumer pod records each event it handled.
    const handled = async () =>
      (
        await (platform as Database).pool.query<{ consumer_group: string }>(
          `SELECT p.consumer_group FROM processed_events p JOIN outbox_events o ON o.event_id = p.event_id
            WHERE o.name = 'shop.orders.placed.v1' AND o.payload->>'order_id' = $1`,
          [orderId],
        )
      ).rows;
    await eventually(async () => expect(await handled()).not.toEqual([]), { timeoutMs: 60_000, intervalMs: 500 });

    // The api starts the order's workflow; only the worker pod polls this Temporal namespace.
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const handle = new Client({ connection, namespace: temporalNamespace }).workflow.getHandle(workflowIds.orderLifecycle(orderId));
      await eventually(
        async () => {
          const { events } = await handle.fetchHistory();
          expect(events?.some((event) => event.workflowTaskCompletedEventAttributes)).toBe(true);
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
    } finally {
      await connection.close();
    }
  }, 180_000);

  it(
    'rotates the keys: every pod restarts on the new keys, the stored secret is rewrapped and readable, and a token from before still verifies',
    async () => {
      const before = await shopStatus();
      const oldKeyId = before.keyRotation?.currentKeyId;
      expect(oldKeyId).toBeDefined();
      const oldPods = new Set((await componentPods()).map((pod) => pod.metadata.uid));
      expect(oldPods.size).toBe(3);

      await updateShop(cluster.kube, NAMESPACE, SHOP, (shop) => {
        shop.metadata = { ...shop.metadata, annotations: { ...shop.metadata?.annotations, [ROTATE_KEYS_ANNOTATION]: 'e2e' } };
      });
      const settled = await eventually(
        async () => {
          const status = await shopStatus();
          expect(status).toMatchObject({ phase: 'Ready', keyRotation: { phase: 'Settled' } });
          expect(status.keyRotation?.currentKeyId).not.toBe(oldKeyId);
          const pods = await componentPods();
          expect(pods.filter((pod) => oldPods.has(pod.metadata.uid))).toEqual([]);
          expect(pods.map((pod) => pod.status?.containerStatuses?.[0]?.ready)).toEqual([true, true, true]);
          return status;
        },
        { timeoutMs: ROLLOUT_TIMEOUT_MS, intervalMs: 1000 },
      );
      const newKeyId = settled.keyRotation?.currentKeyId as string;
      // The rewrap Job's pod counted every stored secret under the new key.
      expect(settled.keyRotation?.rowsPerKeyId).toEqual({ [newKeyId]: 1 });

      const secret = await cluster.kube<{ data: Record<string, string> }>(
        'GET',
        `/api/v1/namespaces/${NAMESPACE}/secrets/${generatedKeysSecretName(SHOP)}`,
      );
      const masterKey = Buffer.from(
        Buffer.from(secret.body.data[GENERATED_KEYS.secretsMasterKey] as string, 'base64').toString(),
        'base64',
      );
      // With the new master key alone: nothing is left under the old one.
      expect(await readStoredSecret((platform as Database).prisma, masterKeyring(masterKey), 'e2e.partner_token')).toBe(
        'kept-through-rotation',
      );
      const api = await apiUrl();
      const staff = graphqlCaller(api, { accessToken });
      expect(await staff('query { secretStatus(key: "e2e.partner_token") { keyId } staffMe { email } }')).toEqual({
        secretStatus: { keyId: newKeyId },
        staffMe: { email: ADMIN.email },
      });
      // And the new pods take orders.
      expect((await placeGuestOrder(api, product)).id).not.toBe(orderId);
    },
    ROLLOUT_TIMEOUT_MS + 60_000,
  );

  it('deleting the Shop stops every process it ran', async () => {
    const listening = (await componentPods()).map((pod) => ({ address: pod.status?.podIP, port: portOfPod(pod) }));
    expect(listening).toHaveLength(3);
    const deleted = await cluster.kube('DELETE', `${shopsPath(NAMESPACE)}/${SHOP}`);
    expect(deleted.status).toBe(200);
    await eventually(async () => expect((await podsIn(NAMESPACE)).map((pod) => pod.metadata.name)).toEqual([]), {
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    for (const { address, port } of listening) expect([address, port, await isPortOpen(port, address)]).toEqual([address, port, false]);
    // A pod's network goes only once no process is left in it: the operator's is the one left.
    expect(await openPodNetworks()).toHaveLength((await podsIn(OPERATOR_NAMESPACE)).length);
  }, 150_000);
});
