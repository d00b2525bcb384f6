import { createServer, type Server } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '@shop/runtime';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { RunningOperator } from '../src/operator.ts';
import { eventually } from '../../test/support/wait.ts';
import { runOperator } from './support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest } from './support/shops.ts';
import { startTestCluster, type TestCluster } from './support/test-cluster.ts';

let cluster: TestCluster;
let proxy: Server;
/** Parts of the paths the proxy does not answer. */
let stalled: string[] = [];
const operators: RunningOperator[] = [];

/**
 * Plain HTTP in front of the API server that never answers a request whose path contains one of
 * `stalled` (a namespace's requests): an API server that accepted the request and hangs.
 */
async function startStallingProxy(): Promise<Server> {
  const { url, caData } = cluster.server;
  const server = createServer((incoming, outgoing) => {
    if (stalled.some((part) => incoming.url?.includes(part))) return;
    const upstream = request(
      new URL(incoming.url ?? '/', url),
      { method: incoming.method, headers: { ...incoming.headers, host: new URL(url).host }, ca: caData },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function kubeConfigThroughProxy(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    // client-node refuses plain HTTP unless told to skip TLS verification; there is no TLS to verify.
    clusters: [{ name: 'proxy', server: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'admin', token: cluster.server.token }],
    contexts: [{ name: 'proxy', cluster: 'proxy', user: 'admin' }],
    currentContext: 'proxy',
  });
  return kubeConfig;
}

/** The operator's log lines, parsed. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'INFO', service: 'shop-operator', destination }) };
}

beforeAll(async () => {
  cluster = await startTestCluster();
  proxy = await startStallingProxy();
}, 180_000);

afterEach(async () => {
  stalled = [];
  await Promise.all(operators.splice(0).map((operator) => operator.stop()));
});

afterAll(async () => {
  proxy?.closeAllConnections();
  proxy?.close();
  await cluster?.dispose();
});

it('aborts the requests of a Shop the API server does not answer at their timeout, and reconciles the other Shops meanwhile', async () => {
  const hung = await cluster.namespace('hung');
  const healthy = await cluster.namespace('healthy');
  stalled = [`/namespaces/${hung}/`];
  await createReferencedSecrets(cluster.kube, healthy);
  await createShop(cluster.kube, hung, shopManifest('stuck', '1.0.0'));
  const { lines, logger } = capturedLogger();
  // One pass at a time: a pass that never ends would hold the only slot, and the healthy Shop would wait forever.
  const operator = await runOperator(cluster, {
    kubeConfig: kubeConfigThroughProxy(),
    logger,
    concurrency: 1,
    requestTimeoutMs: 1_000,
    passTimeoutMs: 5_000,
  });
  operators.push(operator);
  const failures = () => lines.filter((line) => line.msg === 'reconcile failed; retrying' && line.shop === `${hung}/stuck`);
  await eventually(() => expect(failures().length).toBeGreaterThanOrEqual(1), { timeoutMs: 10_000 });
  expect(failures()[0]?.error).toBe(`GET /apis/shop.dev/v1alpha1/namespaces/${hung}/shops/stuck: no answer within 1 s`);

  await createShop(cluster.kube, healthy, shopManifest('fine', '1.0.0'));
  await eventually(async () => expect((await readShop(cluster.kube, healthy, 'fine')).status?.phase).toBe('Migrating'), {
    timeoutMs: 20_000,
  });
  // The hung Shop's key was released each time: it was tried again, with backoff.
  await eventually(() => expect(failures().length).toBeGreaterThanOrEqual(2), { timeoutMs: 10_000 });
  const health = await fetch(`http://127.0.0.1:${operator.metricsPort}/healthz`);
  expect(health.status).toBe(200);
}, 60_000);

it('is ready only once every watch has listed its kind, and healthy meanwhile', async () => {
  const ns = await cluster.namespace('unsynced');
  stalled = ['/api/v1/secrets'];
  const operator = await runOperator(cluster, { kubeConfig: kubeConfigThroughProxy(), requestTimeoutMs: 1_000, passTimeoutMs: 5_000 });
  operators.push(operator);
  const probe = async (path: string) => {
    const reply = await fetch(`http://127.0.0.1:${operator.metricsPort}${path}`);
    return `${reply.status} ${(await reply.text()).trim()}`;
  };
  await createShop(cluster.kube, ns, shopManifest('shop', '1.0.0'));
  // The Shop watch synced: its pass ran; the Secret list has not answered.
  await eventually(async () => expect((await readShop(cluster.kube, ns, 'shop')).status?.phase).toBeDefined());
  expect(await probe('/readyz')).toBe('503 watches not synced yet: Secret');
  expect(await probe('/healthz')).toBe('200 ok');

  stalled = [];
  // The Secret watch starts again with backoff (1 s, then 2 s, ...) after each timed-out list.
  await eventually(async () => expect(await probe('/readyz')).toBe('200 ok'), { timeoutMs: 20_000 });
}, 60_000);
