import { Redis } from 'ioredis';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, uniqueName } from './isolation.ts';
import { withEmptyInfraCache } from './empty-cache.ts';
import { connectOutcome } from './proc.ts';
import { startKafka, startRedis, type ServerHandle } from './servers.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
    expect(isAlive(firstPid as number)).toBe(false);
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
