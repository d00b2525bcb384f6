// `npm run dev:stack`'s module run as a developer runs it, on free ports (never a developer's own stack):
// it prints the environment, each server answers a real request, a signal leaves nothing running, and a
// second run finds the data of the first.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadExtensionConfig } from '@shop/platform';
import { S3FileStorage, s3Config, s3SettingsOf } from '../../extensions/s3-storage/src/index.ts';
import { isProcessAlive } from '../../services/runtime/src/process-alive.ts';
import { VARIABLES } from '../../services/platform/src/config/variables.ts';
import { spawnService, type ServiceProcess } from '../support/service-process.ts';
import { eventually, waitFor } from '../support/wait.ts';
import { DEV_STACK_PORTS, devStackEnvironment, environmentBlock, readDevStackSettings, type DevStackPort } from './dev-stack-settings.ts';
import { withEmptyInfraCache } from './empty-cache.ts';
import { PROVISION_COMMAND } from './layout.ts';
import { allProcessStats } from './proc-stat.ts';
import { connectOutcome, freePort } from './proc.ts';

const ENTRY = join(import.meta.dirname, 'dev-stack.ts');
const READY_LINE = 'dev stack ready; Ctrl-C stops it';
const KEPT = 'dev_stack_kept';

type Ports = Record<DevStackPort, number>;

async function freeStackPorts(): Promise<Ports> {
  const ports = new Set<number>();
  const keys = Object.keys(DEV_STACK_PORTS) as DevStackPort[];
  while (ports.size < keys.length) ports.add(await freePort());
  const values = [...ports];
  return Object.fromEntries(keys.map((key, index) => [key, values[index]])) as Ports;
}

function stackEnv(dir: string, ports: Ports): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { DEV_STACK_DIR: dir };
  for (const key of Object.keys(ports) as DevStackPort[]) env[DEV_STACK_PORTS[key].variable] = String(ports[key]);
  if (process.env.SHOP_INFRA_CACHE !== undefined) env.SHOP_INFRA_CACHE = process.env.SHOP_INFRA_CACHE;
  return env;
}

/** Every process below `pid`: the servers and their own children (PostgreSQL's backends). */
async function descendants(pid: number): Promise<number[]> {
  const stats = await allProcessStats();
  const found: number[] = [];
  const parents = [pid];
  while (parents.length > 0) {
    const parent = parents.pop();
    for (const stat of stats.filter((candidate) => candidate.ppid === parent)) {
      found.push(stat.pid);
      parents.push(stat.pid);
    }
  }
  return found;
}

interface RunningStack {
  readonly process: ServiceProcess;
  readonly environment: Record<string, string>;
  readonly children: number[];
}

const running = new Set<RunningStack>();

async function startStack(env: NodeJS.ProcessEnv): Promise<RunningStack> {
  const stack = spawnService(ENTRY, env);
  const finished = () => stack.output().includes(READY_LINE) || stack.child.exitCode !== null;
  await waitFor(finished, 240_000, 'the dev stack to print its environment', 200);
  if (!stack.output().includes(READY_LINE)) throw new Error(`the dev stack did not start:\n${stack.output()}`);
  const environment = Object.fromEntries([...stack.output().matchAll(/^export (\w+)=(.*)$/gm)].map((match) => [match[1], match[2]]));
  const started = { process: stack, environment, children: await descendants(stack.child.pid as number) };
  running.add(started);
  return started;
}

/** Sends `signal` and asserts the stack exits 0 with every child gone and every port closed. */
async function stopStack(stack: RunningStack, signal: NodeJS.Signals, ports: Ports): Promise<void> {
  stack.process.child.kill(signal);
  const exit = await stack.process.exited();
  running.delete(stack);
  expect(exit, stack.process.output()).toEqual({ code: 0, signal: null });
  expect(stack.children.filter(isProcessAlive)).toEqual([]);
  const open = await Promise.all(Object.values(ports).map(async (port) => ((await connectOutcome(port)) === 'connected' ? [port] : [])));
  expect(open.flat()).toEqual([]);
}

function kafkaAdmin(brokers: string) {
  return new Kafka({ clientId: 'dev-stack-test', brokers: [brokers], logLevel: logLevel.NOTHING }).admin();
}

async function withPg<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function withRedis<T>(url: string, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

async function withTemporal<T>(address: string, use: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

/** The s3 provider as the services build it from the printed variables. */
function storageOf(environment: Record<string, string>): S3FileStorage {
  return new S3FileStorage(s3SettingsOf(loadExtensionConfig(s3Config, environment)));
}

function defaultPort(name: string): string | undefined {
  return VARIABLES.find((variable) => variable.name === name)?.defaultValue;
}

afterEach(async () => {
  // Only after a failed assertion: what the test started must not outlive it.
  for (const stack of running) {
    stack.process.child.kill('SIGKILL');
    for (const pid of stack.children.filter(isProcessAlive)) process.kill(pid, 'SIGKILL');
    running.delete(stack);
  }
});

describe('npm run dev:stack', () => {
  let dir: string;
  let ports: Ports;

  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('starts every server on its port, prints the environment, and leaves nothing running after SIGINT', async () => {
    dir = await mkdtemp(join(tmpdir(), 'shop-dev-stack-'));
    await chmod(dir, 0o755); // as root, PostgreSQL runs as the postgres user and must reach its folder
    ports = await freeStackPorts();
    const stack = await startStack(stackEnv(dir, ports));
    const { environment } = stack;

    expect(environment).toEqual(devStackEnvironment(readDevStackSettings(stackEnv(dir, ports), dir)));
    expect(environment.DATABASE_URL).toBe(`postgresql://postgres@127.0.0.1:${ports.postgres}/shop`);
    expect(await readFile(join(dir, 'env'), 'utf8')).toBe(`${environmentBlock(environment)}\n`);

    const database = await withPg(environment.DATABASE_URL as string, async (client) => {
      await client.query(`CREATE TABLE ${KEPT} (note text)`);
      await client.query(`INSERT INTO ${KEPT} VALUES ('written before a restart')`);
      return (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0]?.db;
    });
    expect(database).toBe('shop');

    const pong = await withRedis(environment.CACHE_URL as string, async (redis) => {
      await redis.set(KEPT, 'written before a restart');
      return redis.ping();
    });
    expect(pong).toBe('PONG');

    const admin = kafkaAdmin(environment.BROKER_ADDRESS as string);
    await admin.connect();
    try {
      const cluster = await admin.describeCluster();
      expect(cluster.brokers.map((broker) => `${broker.host}:${broker.port}`)).toEqual([environment.BROKER_ADDRESS]);
      await admin.createTopics({ topics: [{ topic: KEPT }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }

    const namespace = await withTemporal(environment.WORKFLOW_HOST as string, async (connection) => {
      await connection.workflowService.registerNamespace({ namespace: KEPT, workflowExecutionRetentionPeriod: msToTs('1 day') });
      return (await connection.workflowService.describeNamespace({ namespace: 'default' })).namespaceInfo?.name;
    });
    expect(namespace).toBe('default');

    // The bucket exists and is publicly readable, as npm run storage:setup leaves it.
    const storage = storageOf(environment);
    await storage.put(`${KEPT}.txt`, Buffer.from('written before a restart'), 'text/plain');
    const publicRead = await fetch(storage.publicUrl(`${KEPT}.txt`));
    expect({ status: publicRead.status, body: await publicRead.text() }).toEqual({ status: 200, body: 'written before a restart' });

    const prometheus = `http://127.0.0.1:${ports.prometheus}`;
    expect((await fetch(`${prometheus}/-/ready`)).status).toBe(200);
    // The api, worker and consumer on their documented default ports, and the Temporal server, scraped for real.
    const targets = await eventually(
      async () => {
        const body = (await (await fetch(`${prometheus}/api/v1/targets?state=active`)).json()) as {
          data: { activeTargets: Array<{ scrapeUrl: string; labels: { job: string }; health: string }> };
        };
        const active = body.data.activeTargets;
        expect(active.find((target) => target.labels.job === 'temporal')?.health).toBe('up');
        return active.map((target) => `${target.labels.job} ${target.scrapeUrl}`).sort();
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(targets).toEqual([
      `api http://127.0.0.1:${defaultPort('PORT')}/metrics`,
      `consumer http://127.0.0.1:${defaultPort('CONSUMER_PORT')}/metrics`,
      `temporal http://127.0.0.1:${ports.temporalMetrics}/metrics`,
      `worker http://127.0.0.1:${defaultPort('WORKER_PORT')}/metrics`,
    ]);
    expect((await fetch(`http://127.0.0.1:${ports.temporalUi}/`)).status).toBe(200);

    expect(stack.children.length).toBeGreaterThanOrEqual(6);
    await stopStack(stack, 'SIGINT', ports);
  }, 400_000);

  it('a second run on the same folder finds the data of the first, and SIGTERM stops it too', async () => {
    expect(dir, 'the first test made the stack folder').toBeDefined();
    const stack = await startStack(stackEnv(dir, ports));
    const { environment } = stack;

    const rows = await withPg(environment.DATABASE_URL as string, async (client) => (await client.query(`SELECT note FROM ${KEPT}`)).rows);
    expect(rows).toEqual([{ note: 'written before a restart' }]);
    expect(await withRedis(environment.CACHE_URL as string, (redis) => redis.get(KEPT))).toBe('written before a restart');
    const admin = kafkaAdmin(environment.BROKER_ADDRESS as string);
    await admin.connect();
    try {
      expect(await admin.listTopics()).toContain(KEPT);
    } finally {
      await admin.disconnect();
    }
    const kept = await withTemporal(
      environment.WORKFLOW_HOST as string,
      async (connection) => (await connection.workflowService.describeNamespace({ namespace: KEPT })).namespaceInfo?.name,
    );
    expect(kept).toBe(KEPT);
    const object = await storageOf(environment).get(`${KEPT}.txt`);
    expect(object?.body.toString()).toBe('written before a restart');

    await stopStack(stack, 'SIGTERM', ports);
  }, 400_000);
});

describe('npm run dev:stack refuses to start, in one line', () => {
  async function failedRun(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
    const stack = spawnService(ENTRY, env);
    const { code } = await stack.exited();
    return { code, output: stack.output() };
  }

  let listener: Server | undefined;
  afterAll(() => listener?.close());

  it('when a port is taken, naming the port, its server and its variable', async () => {
    const ports = await freeStackPorts();
    listener = createServer();
    await new Promise<void>((resolve) => listener?.listen(ports.redis, '127.0.0.1', resolve));
    const { code, output } = await failedRun(stackEnv(join(tmpdir(), 'shop-dev-stack-unused'), ports));
    expect({ code, output }).toEqual({
      code: 1,
      output: `dev stack: port ${ports.redis} (Redis) is already in use; stop what listens there or set DEV_STACK_REDIS_PORT\n`,
    });
  });

  it('when a server is not provisioned, naming it and the provisioning command', async () => {
    const ports = await freeStackPorts();
    await withEmptyInfraCache(async () => {
      const { code, output } = await failedRun(stackEnv(join(tmpdir(), 'shop-dev-stack-unused'), ports));
      const cache = process.env.SHOP_INFRA_CACHE as string;
      expect({ code, output }).toEqual({
        code: 1,
        output: `dev stack: Kafka (${cache}/kafka-3.9.1/libs) is not provisioned; run: ${PROVISION_COMMAND}\n`,
      });
    });
  });
});
