import { Redis } from 'ioredis';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { createTestDatabase, createTestNamespace, uniqueName } from './isolation.ts';
import { withEmptyInfraCache } from './empty-cache.ts';
import { connectOutcome } from './proc.ts';
import { startKafka, startRedis, startTemporal, type ServerHandle } from './servers.ts';
import { isProcessAlive } from '../../services/runtime/src/process-alive.ts';

describe('shared servers from global setup', () => {
  it('postgres: a fresh test database answers SELECT 1 and is gone after drop()', async () => {
    const database = await createTestDatabase('infra');
    const client = new pg.Client({ connectionString: database.url });
    client.on('error', () => undefined); // drop() below terminates this connection on purpose
    await client.connect();
    const { rows } = await client.query<{ one: number; db: string }>('SELECT 1 AS one, current_database() AS db');
    expect(rows).toEqual([{ one: 1, db: database.name }]);

    // drop() must work while a connection is still open.
    await database.drop();
    await client.end().catch(() => undefined);
    const admin = new pg.Client({ connectionString: inject('postgresUrl') });
    await admin.connect();
    const remaining = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database.name]);
    await admin.end();
    expect(remaining.rowCount).toBe(0);
  });

  it('redis: SET then GET', async () => {
    const redis = new Redis(inject('redisUrl'));
    try {
      const key = `${uniqueName('infra')}:greeting`;
      await redis.set(key, 'hello');
      expect(await redis.get(key)).toBe('hello');
    } finally {
      redis.disconnect();
    }
  });

  it('kafka: produce and consume one message on a unique topic', async () => {
    const kafka = new Kafka({ clientId: 'infra-test', brokers: [inject('kafkaBrokers')], logLevel: logLevel.WARN });
    const topic = uniqueName('infra');
    const admin = kafka.admin();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    const consumer = kafka.consumer({ groupId: uniqueName('infra-group') });
    try {
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      await producer.connect();
      await producer.send({ topic, messages: [{ key: 'k', value: 'hello kafka' }] });

      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const received = new Promise<string>((resolve) => {
        void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString() ?? '') });
      });
      expect(await received).toBe('hello kafka');
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
    }
  });
});

/** A Temporal client on `address` in `namespace`, closed after `use`. */
async function withTemporal<T>(address: string, namespace: string, use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(new Client({ connection, namespace }));
  } finally {
    await connection.close();
  }
}

async function scheduleIds(client: Client): Promise<string[]> {
  const ids: string[] = [];
  for await (const schedule of client.schedule.list()) ids.push(schedule.scheduleId);
  return ids;
}

describe('temporal', () => {
  it('gives a test file a namespace of its own, where Schedules work', async () => {
    const namespace = await createTestNamespace('infra');
    await withTemporal(inject('temporalAddress'), namespace, async (client) => {
      const handle = await client.schedule.create({
        scheduleId: 'infra-probe',
        spec: { intervals: [{ every: '1h' }] },
        action: { type: 'startWorkflow', workflowType: 'ProbeWorkflow', taskQueue: 'infra', args: [] },
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
        state: { paused: true },
      });
      const described = await handle.describe();
      expect(described.state.paused).toBe(true);
      expect(described.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
      expect(await scheduleIds(client)).toEqual(['infra-probe']);
      await handle.delete();
    });
    // The other namespaces see none of it.
    await withTemporal(inject('temporalAddress'), await createTestNamespace('infra'), async (client) => {
      expect(await scheduleIds(client)).toEqual([]);
    });
  });

  it('a dedicated server keeps its data across stop() and start(), and dispose() removes it', async () => {
    const temporal = await startTemporal();
    try {
      await withTemporal(temporal.url, 'default', (client) =>
        client.schedule.create({
          scheduleId: 'kept',
          spec: { intervals: [{ every: '1h' }] },
          action: { type: 'startWorkflow', workflowType: 'ProbeWorkflow', taskQueue: 'infra', args: [] },
          state: { paused: true },
        }),
      );
      const firstPid = temporal.pid() as number;
      await temporal.stop();
      expect(isProcessAlive(firstPid)).toBe(false);
      expect(await connectOutcome(temporal.port)).toBe('ECONNREFUSED');
      await temporal.start();
      expect(await withTemporal(temporal.url, 'default', scheduleIds)).toEqual(['kept']);
    } finally {
      const pid = temporal.pid();
      await temporal.dispose();
      if (pid !== undefined) expect(isProcessAlive(pid)).toBe(false);
    }
  });
});

describe('a dedicated server', () => {
  let redis: ServerHandle | undefined;
  afterAll(async () => {
    await redis?.dispose();
  });

  it('stop() really stops redis and start() brings it back on the same port', async () => {
    redis = await startRedis();
    const { port } = redis;
    const firstPid = redis.pid();
    expect(firstPid).toBeTypeOf('number');
    expect(await connectOutcome(port)).toBe('connected');

    await redis.stop();
    expect(redis.pid()).toBeUndefined();
    expect(isProcessAlive(firstPid as number)).toBe(false);
    expect(await connectOutcome(port)).toBe('ECONNREFUSED');

    await redis.start();
    expect(redis.port).toBe(port);
    expect(redis.pid()).not.toBe(firstPid);
    const client = new Redis(redis.url);
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });
});

describe('an unprovisioned server', () => {
  it('fails with the command that provisions it', async () => {
    await withEmptyInfraCache(async () => {
      await expect(startKafka()).rejects.toThrow('node test/infra/provision.ts');
    });
  });
});
