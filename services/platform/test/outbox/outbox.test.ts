import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { applyMigrations } from '../../src/db/migrations/index.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '@shop/runtime';
import { openPlatform, type Platform } from '../../src/platform.ts';
import { createEmitter } from '../../src/outbox/emit.ts';
import { outboxMetrics } from '../../src/outbox/outbox-metrics.ts';
import { OutboxRelay } from '../../src/outbox/relay.ts';
import { OutboxDispatcher } from '../../src/outbox/dispatcher.ts';
import { pruneOutbox } from '../../src/outbox/prune.ts';
import type { OutboxMessage, Publisher } from '../../src/outbox/publisher.ts';
import type { EventListener } from '../../src/outbox/listeners.ts';
import { examplePayload } from '../support/outbox.ts';

const logger = createLogger({ level: 'ERROR', service: 'test' });
let database: TestDatabase;
let platform: Platform;

beforeAll(async () => {
  database = await createTestDatabase('outbox');
  await applyMigrations(database.url);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') });
  platform = await openPlatform(config, logger, 'test');
});

afterAll(async () => {
  await platform?.close();
  await database?.drop();
});

class RecordingPublisher implements Publisher {
  readonly published: OutboxMessage[];
  constructor(log: OutboxMessage[] = []) {
    this.published = log;
  }
  async publish(messages: readonly OutboxMessage[]): Promise<void> {
    // why: a publish takes time, as Kafka's does: concurrent relays then contend for the rows one of them holds
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.published.push(...messages);
  }
  async close(): Promise<void> {}
}

const metrics = () => outboxMetrics(platform.metrics, platform.database.pool);
const emitter = (mode: 'strict' | 'warn') => createEmitter({ mode, logger, metrics: metrics() }).emit;
const pending = async () =>
  Number(
    (await platform.database.pool.query('SELECT count(*) FROM outbox_events WHERE published_at IS NULL AND dispatched_at IS NULL')).rows[0]
      .count,
  );
const clearOutbox = () => platform.database.pool.query('TRUNCATE outbox_events CASCADE');

describe('emit', () => {
  it('writes nothing when the transaction rolls back, so nothing is published', async () => {
    await clearOutbox();
    const emit = emitter('strict');
    await expect(
      platform.database.prisma.$transaction(async (tx) => {
        await emit(tx, 'shop.leads.created.v1', examplePayload('shop.leads.created.v1'));
        throw new Error('the business change failed');
      }),
    ).rejects.toThrow('the business change failed');
    const publisher = new RecordingPublisher();
    expect(await new OutboxRelay({ pool: platform.database.pool, publisher, metrics: metrics() }).relayOnce()).toBe(0);
    expect(publisher.published).toEqual([]);
    expect(await pending()).toBe(0);
  });

  it('fills event_id, schema_version and occurred_at when the producer leaves them out', async () => {
    await clearOutbox();
    const { event_id: _id, schema_version: _v, occurred_at: _at, ...rest } = examplePayload('shop.leads.created.v1');
    await platform.database.prisma.$transaction((tx) => emitter('strict')(tx, 'shop.leads.created.v1', rest));
    const { rows } = await platform.database.pool.query('SELECT event_id, payload FROM outbox_events');
    expect(rows).toHaveLength(1);
    expect(rows[0].payload).toMatchObject({ event_id: rows[0].event_id, schema_version: 1 });
    expect(Date.parse(rows[0].payload.occurred_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('rejects an invalid payload in strict mode, naming the topic and the failing path', async () => {
    const bad = { ...examplePayload('shop.leads.created.v1'), email: 42 } as never;
    await expect(platform.database.prisma.$transaction((tx) => emitter('strict')(tx, 'shop.leads.created.v1', bad))).rejects.toThrow(
      /shop\.leads\.created\.v1.*\/email/,
    );
  });

  it('publishes an invalid payload in warn mode and counts it', async () => {
    await clearOutbox();
    const counter = metrics().schemaWarnings;
    const before = (await counter.get()).values.find((value) => value.labels.topic === 'shop.leads.created.v1')?.value ?? 0;
    const bad = { ...examplePayload('shop.leads.created.v1', { event_id: randomUUID() }), email: 42 } as never;
    await platform.database.prisma.$transaction((tx) => emitter('warn')(tx, 'shop.leads.created.v1', bad));
    const after = (await counter.get()).values.find((value) => value.labels.topic === 'shop.leads.created.v1')?.value ?? 0;
    expect(after - before).toBe(1);
    const publisher = new RecordingPublisher();
    await new OutboxRelay({ pool: platform.database.pool, publisher, metrics: metrics() }).relayOnce();
    expect(publisher.published.map((message) => (JSON.parse(message.value) as { email: unknown }).email)).toEqual([42]);
  });
});

describe('outbox transaction', () => {
  const leadEvent = (leadId: string) => examplePayload('shop.leads.created.v1', { event_id: randomUUID(), lead_id: leadId });

  it('writes the events with the change, in emit order, when the transaction commits', async () => {
    await clearOutbox();
    const emitter = createEmitter({ mode: 'strict', logger, metrics: metrics() });
    await emitter.transaction(platform.database.prisma, async (tx) => {
      await tx.setting.create({ data: { key: 'outbox-transaction', value: 'committed' } });
      for (const leadId of ['3', '1', '2']) await emitter.emit(tx, 'shop.leads.created.v1', leadEvent(leadId));
    });
    const { rows } = await platform.database.pool.query('SELECT partition_key FROM outbox_events ORDER BY id');
    expect(rows.map((row) => row.partition_key)).toEqual(['3', '1', '2']);
    expect((await platform.database.pool.query("SELECT value FROM settings WHERE key = 'outbox-transaction'")).rows).toEqual([
      { value: 'committed' },
    ]);
    await platform.database.pool.query('DELETE FROM settings');
  });

  it('writes nothing when the work fails after emitting, and lets a strict schema error roll back the change', async () => {
    await clearOutbox();
    const emitter = createEmitter({ mode: 'strict', logger, metrics: metrics() });
    await expect(
      emitter.transaction(platform.database.prisma, async (tx) => {
        await emitter.emit(tx, 'shop.leads.created.v1', leadEvent('1'));
        throw new Error('the business change failed');
      }),
    ).rejects.toThrow('the business change failed');
    await expect(
      emitter.transaction(platform.database.prisma, async (tx) => {
        await tx.setting.create({ data: { key: 'never-committed', value: 'x' } });
        await emitter.emit(tx, 'shop.leads.created.v1', { ...leadEvent('2'), email: 42 } as never);
      }),
    ).rejects.toThrow(/\/email/);
    expect(await pending()).toBe(0);
    expect((await platform.database.pool.query("SELECT 1 FROM settings WHERE key = 'never-committed'")).rows).toEqual([]);
  });
});

describe('event size', () => {
  it('refuses an event too large to relay, even in warn mode, so it can never block the outbox', async () => {
    await clearOutbox();
    const huge = { ...examplePayload('shop.leads.created.v1'), name: 'x'.repeat(300 * 1024) };
    await expect(platform.database.prisma.$transaction((tx) => emitter('warn')(tx, 'shop.leads.created.v1', huge))).rejects.toThrow(
      /shop\.leads\.created\.v1 is \d+ bytes; events may be at most 262144 bytes/,
    );
    expect(await pending()).toBe(0);
  });
});

describe('relay', () => {
  it('never publishes a row twice when several relays run at once', async () => {
    await clearOutbox();
    const emit = emitter('strict');
    for (let batch = 0; batch < 10; batch += 1) {
      await platform.database.prisma.$transaction(async (tx) => {
        for (let i = 0; i < 30; i += 1)
          await emit(tx, 'shop.leads.created.v1', examplePayload('shop.leads.created.v1', { event_id: randomUUID() }));
      });
    }
    const sharedLog: OutboxMessage[] = [];
    const relays = [1, 2, 3].map(
      () =>
        new OutboxRelay({ pool: platform.database.pool, publisher: new RecordingPublisher(sharedLog), metrics: metrics(), batchSize: 20 }),
    );
    while ((await pending()) > 0) await Promise.all(relays.map((relay) => relay.relayOnce()));
    const ids = sharedLog.map((message) => message.id);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((a, b) => a - b));
  });

  it('keeps rows pending when publishing fails, and publishes them on the next pass', async () => {
    await clearOutbox();
    await platform.database.prisma.$transaction((tx) =>
      emitter('strict')(tx, 'shop.leads.created.v1', examplePayload('shop.leads.created.v1')),
    );
    const failing: Publisher = { publish: () => Promise.reject(new Error('broker down')), close: async () => {} };
    await expect(new OutboxRelay({ pool: platform.database.pool, publisher: failing, metrics: metrics() }).relayOnce()).rejects.toThrow(
      'broker down',
    );
    expect(await pending()).toBe(1);
    const publisher = new RecordingPublisher();
    expect(await new OutboxRelay({ pool: platform.database.pool, publisher, metrics: metrics() }).relayOnce()).toBe(1);
    expect(await pending()).toBe(0);
  });
});

describe('dispatcher', () => {
  const recordingListener = (name: string): EventListener<'cart.item_added'> => ({
    name,
    event: 'cart.item_added',
    async handle(tx, payload) {
      await tx.setting.create({ data: { key: `${name}:${payload.event_id}`, value: payload.cart_line_id } });
    },
  });

  it('runs each listener once per event, even when dispatched again', async () => {
    await clearOutbox();
    await platform.database.prisma.$transaction((tx) =>
      emitter('strict')(tx, 'cart.item_added', examplePayload('cart.item_added', { event_id: randomUUID() })),
    );
    const dispatcher = new OutboxDispatcher({
      pool: platform.database.pool,
      prisma: platform.database.prisma,
      listeners: [recordingListener('attribution'), recordingListener('audit')],
      metrics: metrics(),
      logger,
    });
    expect(await dispatcher.dispatchOnce()).toBe(1);
    await platform.database.pool.query('UPDATE outbox_events SET dispatched_at = NULL, next_attempt_at = now()');
    expect(await dispatcher.dispatchOnce()).toBe(1);
    const { rows } = await platform.database.pool.query("SELECT key FROM settings WHERE key LIKE 'attribution:%' OR key LIKE 'audit:%'");
    expect(rows).toHaveLength(2);
    await platform.database.pool.query('DELETE FROM settings');
  });

  it('parks a listener that keeps failing and counts it, without blocking the others', async () => {
    await clearOutbox();
    await platform.database.prisma.$transaction((tx) =>
      emitter('strict')(tx, 'cart.item_added', examplePayload('cart.item_added', { event_id: randomUUID() })),
    );
    let failures = 0;
    const broken: EventListener<'cart.item_added'> = {
      name: 'broken',
      event: 'cart.item_added',
      async handle() {
        failures += 1;
        throw new Error('downstream unavailable');
      },
    };
    const dispatcher = new OutboxDispatcher({
      pool: platform.database.pool,
      prisma: platform.database.prisma,
      listeners: [broken, recordingListener('healthy')],
      metrics: metrics(),
      logger,
      maxAttempts: 3,
    });
    const parkedBefore = (await metrics().listenerFailures.get()).values.find((value) => value.labels.listener === 'broken')?.value ?? 0;
    for (let pass = 0; pass < 3; pass += 1) {
      await dispatcher.dispatchOnce();
      await platform.database.pool.query('UPDATE outbox_events SET next_attempt_at = now()');
    }
    expect(failures).toBe(3);
    const { rows } = await platform.database.pool.query(
      'SELECT listener, status, attempts, last_error FROM outbox_deliveries ORDER BY listener',
    );
    expect(rows).toEqual([
      { listener: 'broken', status: 'parked', attempts: 3, last_error: 'downstream unavailable' },
      { listener: 'healthy', status: 'done', attempts: 1, last_error: null },
    ]);
    expect((await platform.database.pool.query('SELECT dispatched_at FROM outbox_events')).rows[0].dispatched_at).not.toBeNull();
    const parkedAfter = (await metrics().listenerFailures.get()).values.find((value) => value.labels.listener === 'broken')?.value ?? 0;
    expect(parkedAfter - parkedBefore).toBe(1);
    await platform.database.pool.query('DELETE FROM settings');
  });
});

describe('pruning', () => {
  it('deletes finished events older than the retention and keeps waiting ones', async () => {
    await clearOutbox();
    const emit = emitter('strict');
    await platform.database.prisma.$transaction(async (tx) => {
      for (let i = 0; i < 3; i += 1)
        await emit(tx, 'shop.leads.created.v1', examplePayload('shop.leads.created.v1', { event_id: randomUUID() }));
    });
    const pool = platform.database.pool;
    await pool.query(`UPDATE outbox_events SET created_at = now() - interval '200 hours'`);
    await pool.query(`UPDATE outbox_events SET published_at = now() WHERE id IN (SELECT id FROM outbox_events ORDER BY id LIMIT 2)`);
    expect(await pruneOutbox(pool, 168)).toBe(2);
    expect(await pending()).toBe(1);
  });
});

describe('backlog metrics', () => {
  it('report pending events and the age of the oldest, per kind, and zero once they are done', async () => {
    await clearOutbox();
    const emit = emitter('strict');
    await platform.database.prisma.$transaction(async (tx) => {
      await emit(tx, 'shop.leads.created.v1', examplePayload('shop.leads.created.v1', { event_id: randomUUID() }));
      await emit(tx, 'shop.leads.created.v1', examplePayload('shop.leads.created.v1', { event_id: randomUUID() }));
      await emit(tx, 'cart.item_added', examplePayload('cart.item_added', { event_id: randomUUID() }));
    });
    await platform.database.pool.query(
      `UPDATE outbox_events SET created_at = now() - interval '90 seconds' WHERE partition_key IS NOT NULL`,
    );
    metrics();
    const scrape = async () => platform.metrics.metrics();

    const pendingText = await scrape();
    expect(pendingText).toMatch(/^outbox_pending_events\{kind="topic",service="test"\} 2$/m);
    expect(pendingText).toMatch(/^outbox_pending_events\{kind="in_process",service="test"\} 1$/m);
    const age = Number(/^outbox_oldest_pending_age_seconds\{kind="topic",service="test"\} ([\d.]+)$/m.exec(pendingText)?.[1]);
    expect(age).toBeGreaterThanOrEqual(90);

    await new OutboxRelay({ pool: platform.database.pool, publisher: new RecordingPublisher(), metrics: metrics() }).relayOnce();
    const afterText = await scrape();
    expect(afterText).toMatch(/^outbox_pending_events\{kind="topic",service="test"\} 0$/m);
    expect(afterText).toMatch(/^outbox_oldest_pending_age_seconds\{kind="topic",service="test"\} 0$/m);
  });

  it('have no sample while the database cannot be read, and leave the rest of the scrape answering', async () => {
    const registry = new Registry();
    // Nothing listens on port 1: every query fails at once, as with the database server stopped.
    const unreachable = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:1/shop' });
    outboxMetrics(registry, unreachable).published.inc({ topic: 'shop.leads.created.v1' });
    try {
      const text = await registry.metrics();
      expect(text).toMatch(/^outbox_published_total\{topic="shop\.leads\.created\.v1"\} 1$/m);
      expect(text).not.toMatch(/^outbox_(pending_events|oldest_pending_age_seconds)\{/m);
    } finally {
      await unreachable.end();
    }
  });
});
