import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase, uniqueName, type TestDatabase } from '../../../test/infra/isolation.ts';
import { auditSubscription } from '@shop/domain/audit';
import { EXIT_GROUP_TAKEN } from '../src/run-process.ts';
import { CONSUMER_MAIN, COUNTING_CONSUMER, spawnConsumer, type ConsumerProcess } from './support/consumer-process.ts';
import { createTopic, produceEvents, testEvent, testKafka } from './support/kafka.ts';
import { effectsOf, processedEventIds } from './support/database.ts';
import { sampleSum } from './support/prometheus.ts';
import { waitFor } from '../../../test/support/wait.ts';
import { migrateRepositoryExtensions } from '../../../test/support/extensions.ts';

const brokers = inject('kafkaBrokers');
let database: TestDatabase;
let pool: pg.Pool;
let env: NodeJS.ProcessEnv;
const spawned: ConsumerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase('consumer_process');
  await applyMigrations(database.url);
  await migrateRepositoryExtensions(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on('error', () => {});
  env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'INFO',
    DATABASE_URL: database.url,
    CACHE_URL: inject('redisUrl'),
    BROKER_ADDRESS: brokers,
    CONSUMER_PORT: '0',
  };
});

afterAll(async () => {
  for (const consumer of spawned) consumer.child.kill('SIGKILL');
  await pool?.end();
  await database?.drop();
});

function run(entry: string, extraEnv: NodeJS.ProcessEnv = {}, cwd?: string): ConsumerProcess {
  const consumer = spawnConsumer(entry, { ...env, ...extraEnv }, cwd);
  spawned.push(consumer);
  return consumer;
}

async function lockSessions(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'shop-consumer-locks' AND datname = current_database()",
  );
  return rows[0]?.n ?? 0;
}

async function ready(url: string): Promise<boolean> {
  return (await fetch(`${url}/ready`)).status === 200;
}

describe('a consumer killed mid-batch and restarted', () => {
  it('applies no handler effect twice', async () => {
    const [topic, groupId] = [uniqueName('crash'), uniqueName('group')];
    await createTopic(brokers, topic, 3);
    const events = Array.from({ length: 300 }, (_, i) => testEvent(`cart-${i % 30}`));
    await produceEvents(brokers, topic, events);
    const groupEnv = { TEST_GROUP_ID: groupId, TEST_TOPIC: topic };

    const first = run(COUNTING_CONSUMER, { ...groupEnv, TEST_HANDLER_DELAY_MS: '20' });
    await waitFor(async () => (await effectsOf(pool, groupId)).size >= 60, 60_000, 'the first 60 effects');
    first.child.kill('SIGKILL');
    expect((await first.exited()).signal).toBe('SIGKILL');
    const appliedBeforeKill = (await effectsOf(pool, groupId)).size;
    expect(appliedBeforeKill).toBeLessThan(events.length);
    // The killed session's locks go when PostgreSQL notices the closed socket.
    await waitFor(async () => (await lockSessions()) === 0, 10_000, 'the killed lock session to end');

    const second = run(COUNTING_CONSUMER, groupEnv);
    const url = await second.listening();
    await waitFor(async () => (await processedEventIds(pool, groupId)).length === events.length, 60_000, 'every event processed');

    const effects = await effectsOf(pool, groupId);
    expect(effects.size).toBe(events.length);
    expect([...effects.values()].filter((count) => count !== 1)).toEqual([]);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const duplicates = sampleSum(metrics, 'consumer_messages_handled_total', { group: groupId, result: 'duplicate' });
    const done = sampleSum(metrics, 'consumer_messages_handled_total', { group: groupId, result: 'done' });
    // Offsets of the killed batch were never committed: its handled messages came again and were skipped.
    expect(duplicates).toBeGreaterThanOrEqual(appliedBeforeKill);
    expect(done + duplicates).toBeGreaterThanOrEqual(events.length);

    second.child.kill('SIGTERM');
    expect((await second.exited()).code).toBe(0);
  });
});

describe('a consumer stopped with SIGTERM mid-batch', () => {
  it('finishes the message in hand and commits every handled offset before it exits', async () => {
    const [topic, groupId] = [uniqueName('drain'), uniqueName('group')];
    await createTopic(brokers, topic, 2);
    await produceEvents(
      brokers,
      topic,
      Array.from({ length: 100 }, (_, i) => testEvent(`sku-${i % 10}`)),
    );

    const consumer = run(COUNTING_CONSUMER, { TEST_GROUP_ID: groupId, TEST_TOPIC: topic, TEST_HANDLER_DELAY_MS: '50' });
    await waitFor(async () => (await effectsOf(pool, groupId)).size >= 10, 60_000, 'the first 10 effects');
    consumer.child.kill('SIGTERM');
    expect((await consumer.exited()).code).toBe(0);

    const handled = (await processedEventIds(pool, groupId)).length;
    expect(handled).toBeLessThan(100);
    const admin = testKafka(brokers).admin();
    await admin.connect();
    try {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      // Committed offsets are the next to read: their sum is the number of messages finished.
      expect(committed?.partitions.reduce((sum, { offset }) => sum + Math.max(0, Number(offset)), 0)).toBe(handled);
    } finally {
      await admin.disconnect();
    }
  });
});

const AUDIT_GROUP_ID = auditSubscription.name;

describe('the consumer process', () => {
  it('serves probes and metrics, audits events, refuses a second instance of its group, and stops on SIGTERM', async () => {
    const first = run(CONSUMER_MAIN);
    const url = await first.listening();
    await waitFor(() => ready(url), 30_000, '/ready to answer 200');

    const second = run(CONSUMER_MAIN);
    expect((await second.exited()).code).toBe(EXIT_GROUP_TAKEN);
    const refusal = second.logLines().filter((line) => line.level === 'ERROR');
    expect(refusal.map((line) => line.msg)).toEqual([`consumer group ${AUDIT_GROUP_ID} is already run by another instance; exiting`]);

    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
    const readiness = await fetch(`${url}/ready`);
    expect(readiness.status).toBe(200);
    expect(await readiness.json()).toMatchObject({
      status: 'ready',
      groups: { [AUDIT_GROUP_ID]: 'running' },
      dependencies: { database: { status: 'healthy', mode: 'external' } },
    });

    const account = testEvent('42', { customer_id: '42' });
    await produceEvents(brokers, 'shop.accounts.created.v1', [account]);
    await waitFor(async () => (await processedEventIds(pool, AUDIT_GROUP_ID)).includes(account.eventId), 30_000, 'the audit record');
    const { rows: trail } = await pool.query('SELECT topic, entity_id FROM audit_entries WHERE event_id = $1', [account.eventId]);
    expect(trail).toEqual([{ topic: 'shop.accounts.created.v1', entity_id: '42' }]);

    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^kafka_consumergroup_lag\{group="shop\.audit",topic="shop\.accounts\.created\.v1",partition="\d+"/m);
    expect(sampleSum(metrics, 'consumer_messages_handled_total', { group: AUDIT_GROUP_ID, result: 'done' })).toBeGreaterThanOrEqual(1);

    first.child.kill('SIGTERM');
    expect((await first.exited()).code).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    expect(await lockSessions()).toBe(0);
  });

  it('stops with exit code 1 when the connection holding its group lock is lost', async () => {
    const [topic, groupId] = [uniqueName('lock'), uniqueName('group')];
    await createTopic(brokers, topic, 1);
    const consumer = run(COUNTING_CONSUMER, { TEST_GROUP_ID: groupId, TEST_TOPIC: topic });
    const url = await consumer.listening();
    await waitFor(() => ready(url), 30_000, '/ready to answer 200');

    await pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'shop-consumer-locks' AND datname = current_database()",
    );

    expect((await consumer.exited()).code).toBe(1);
    expect(
      consumer.logLines().some((line) => String(line.msg).startsWith('stopping: lost the connection holding the consumer group locks')),
    ).toBe(true);
  });

  it('exits 0 without a broker, before opening any database', async () => {
    const workDir = await mkdtemp(path.join(tmpdir(), 'shop-consumer-'));
    try {
      const consumer = run(CONSUMER_MAIN, { BROKER_ADDRESS: '', DATABASE_URL: '' }, workDir);
      expect((await consumer.exited()).code).toBe(0);
      expect(consumer.logLines().map((line) => line.msg)).toEqual([
        expect.stringMatching(/^BROKER_ADDRESS is not set: there is no Kafka to consume from; exiting/),
      ]);
      expect(existsSync(path.join(workDir, '.data'))).toBe(false);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });

  it('exits 78 naming a malformed CONSUMER_PORT', async () => {
    const consumer = run(CONSUMER_MAIN, { CONSUMER_PORT: 'ninety' });
    expect((await consumer.exited()).code).toBe(78);
    expect(consumer.output().trim().split('\n')).toEqual([
      'config error: CONSUMER_PORT: must be a whole number from 0 to 65535 (got "ninety")',
    ]);
  });

  it('exits 78 when the broker is set but the database is the embedded one', async () => {
    const consumer = run(CONSUMER_MAIN, { DATABASE_URL: '' });
    expect((await consumer.exited()).code).toBe(78);
    expect(consumer.output().trim().split('\n')).toEqual([
      'config error: DATABASE_URL: is required by the consumer when BROKER_ADDRESS is set (the embedded database belongs to the api)',
    ]);
  });
});
