import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, inject, onTestFailed } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase, uniqueName, type TestDatabase } from '../../../test/infra/isolation.ts';
import { startConsumerService, type ConsumerService, type ConsumerServiceOptions } from '../src/consumer-service.ts';
import { DEAD_LETTER_HEADERS, deadLetterTopic } from '../src/dead-letter.ts';
import type { ConsumerGroupDefinition } from '../src/group-definition.ts';
import { ALWAYS_FAILS, countingGroup } from './support/groups.ts';
import { EVENT_ID_HEADER, createTopic, header, produceEvents, produceRaw, readMessages, testEvent } from './support/kafka.ts';
import { effectsOf, processedEventIds } from './support/database.ts';
import { metricValue, openTestPlatform, type TestPlatform } from './support/platform.ts';
import { waitFor } from '../../../test/support/wait.ts';

const brokers = inject('kafkaBrokers');
const FAST_RETRIES: ConsumerServiceOptions = { retry: { attempts: 3, initialDelayMs: 20, maxDelayMs: 100 } };

let database: TestDatabase;
let test: TestPlatform;
const running: ConsumerService[] = [];

beforeAll(async () => {
  database = await createTestDatabase('consumer');
  await applyMigrations(database.url);
  test = await openTestPlatform(database.url, brokers);
});

beforeEach(() => {
  const from = test.logs().length;
  onTestFailed(() => {
    for (const line of test.logs().slice(from)) console.error(JSON.stringify(line));
  });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.stop()));
});

afterAll(async () => {
  await test?.platform.close();
  await database?.drop();
});

async function start(groups: readonly ConsumerGroupDefinition[], options: ConsumerServiceOptions = {}): Promise<ConsumerService> {
  const service = await startConsumerService(test.platform, groups, options);
  running.push(service);
  return service;
}

function handled(groupId: string, result: string): Promise<number> {
  return metricValue(test.platform.metrics, 'consumer_messages_handled_total', { group: groupId, result });
}

describe('idempotent handling', () => {
  it('runs the handler once per event, even when the event is delivered twice', async () => {
    const [topic, groupId] = [uniqueName('once'), uniqueName('group')];
    await createTopic(brokers, topic, 3);
    const events = Array.from({ length: 20 }, (_, i) => testEvent(`customer-${i % 6}`));
    const redelivered = events.slice(0, 5);
    await produceEvents(brokers, topic, events);
    await produceEvents(brokers, topic, redelivered);

    await start([countingGroup(groupId, topic)]);
    // Delivery is at least once: a rebalance may bring more duplicates than the 5 produced.
    const finished = async () => (await handled(groupId, 'done')) === 20 && (await handled(groupId, 'duplicate')) >= 5;
    await waitFor(finished, 30_000, '20 events handled and 5 duplicates skipped');

    const effects = await effectsOf(test.platform.database.pool, groupId);
    expect(effects.size).toBe(20);
    expect([...effects.values()].every((count) => count === 1)).toBe(true);
    expect((await processedEventIds(test.platform.database.pool, groupId)).sort()).toEqual(events.map((event) => event.eventId).sort());
    expect(await handled(groupId, 'done')).toBe(20);
  });
});

describe('dead letters', () => {
  it('sends a message whose handler keeps failing to the DLQ with the reason after N attempts, then moves on', async () => {
    const [topic, groupId] = [uniqueName('failing'), uniqueName('group')];
    await createTopic(brokers, topic, 1);
    const failing = testEvent('lead-1', { fail: true });
    const next = testEvent('lead-1');
    await produceEvents(brokers, topic, [failing, next]);

    await start([countingGroup(groupId, topic)], FAST_RETRIES);
    await waitFor(async () => (await handled(groupId, 'done')) === 1, 30_000, 'the next message handled');

    const [letter, ...others] = await readMessages(brokers, deadLetterTopic(groupId, topic), 1);
    expect(others).toEqual([]);
    expect(letter?.key?.toString()).toBe('lead-1');
    expect(JSON.parse(letter?.value?.toString() ?? 'null')).toEqual(failing.payload);
    expect(letter && header(letter, EVENT_ID_HEADER)).toBe(failing.eventId);
    expect(letter && header(letter, DEAD_LETTER_HEADERS.reason)).toBe(ALWAYS_FAILS);
    expect(letter && header(letter, DEAD_LETTER_HEADERS.attempts)).toBe('3');
    expect(letter && header(letter, DEAD_LETTER_HEADERS.group)).toBe(groupId);
    expect(letter && header(letter, DEAD_LETTER_HEADERS.topic)).toBe(topic);
    expect(letter && header(letter, DEAD_LETTER_HEADERS.partition)).toBe('0');
    expect(letter && header(letter, DEAD_LETTER_HEADERS.offset)).toBe('0');

    expect([...(await effectsOf(test.platform.database.pool, groupId)).keys()]).toEqual([next.eventId]);
    // A dead-lettered event is not marked processed: replayed from the DLQ, it runs again.
    expect(await processedEventIds(test.platform.database.pool, groupId)).toEqual([next.eventId]);
    expect(await metricValue(test.platform.metrics, 'consumer_handler_failures_total', { group: groupId, topic })).toBe(3);
    expect(await handled(groupId, 'dead_lettered')).toBe(1);
  });

  it('sends poison (not JSON, no event_id) to the DLQ at once, without running the handler', async () => {
    const [topic, groupId] = [uniqueName('poison'), uniqueName('group')];
    await createTopic(brokers, topic, 1);
    const good = testEvent('order-9');
    await produceRaw(brokers, topic, [
      { key: 'order-7', value: '{"event_id": "truncated' },
      { key: 'order-8', value: JSON.stringify({ schema_version: 1, order_id: '8' }) },
    ]);
    await produceEvents(brokers, topic, [good]);

    let handlerRuns = 0;
    const countRuns = async () => {
      handlerRuns += 1;
    };
    await start([countingGroup(groupId, topic, { before: countRuns })]);
    await waitFor(async () => (await handled(groupId, 'done')) === 1, 30_000, 'the good message handled');

    // Dead-letter topics have the broker's default partition count: order holds per key only.
    const letters = (await readMessages(brokers, deadLetterTopic(groupId, topic), 2)).sort((a, b) =>
      String(a.key).localeCompare(String(b.key)),
    );
    expect(letters.map((letter) => letter.key?.toString())).toEqual(['order-7', 'order-8']);
    expect(letters[0]?.value?.toString()).toBe('{"event_id": "truncated');
    expect(letters[0] && header(letters[0], DEAD_LETTER_HEADERS.reason)).toMatch(/^the value is not JSON: /);
    expect(letters[1] && header(letters[1], DEAD_LETTER_HEADERS.reason)).toBe('the payload has no event_id UUID');
    expect(letters.map((letter) => header(letter, DEAD_LETTER_HEADERS.attempts))).toEqual(['0', '0']);
    expect(handlerRuns).toBe(1);
    expect(await metricValue(test.platform.metrics, 'consumer_handler_failures_total', { group: groupId })).toBe(0);
    expect(await handled(groupId, 'dead_lettered')).toBe(2);
  });
});

describe('kafka_consumergroup_lag', () => {
  it('is positive while the group is behind and 0 once it caught up', async () => {
    const [topic, groupId] = [uniqueName('lag'), uniqueName('group')];
    await createTopic(brokers, topic, 2);
    await produceEvents(
      brokers,
      topic,
      Array.from({ length: 10 }, (_, i) => testEvent(`product-${i}`)),
    );

    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered = false;
    const hold = async () => {
      entered = true;
      await held;
    };
    await start([countingGroup(groupId, topic, { before: hold })]);
    const lag = () => metricValue(test.platform.metrics, 'kafka_consumergroup_lag', { group: groupId, topic });
    try {
      await waitFor(() => entered, 30_000, 'the handler to be entered');
      expect(await lag()).toBe(10);
      const { values } = await (test.platform.metrics.getSingleMetric('kafka_consumergroup_lag')?.get() ?? { values: [] });
      const partitions = values.filter((value) => value.labels.group === groupId).map((value) => value.labels.partition);
      expect(partitions.sort()).toEqual(['0', '1']);
    } finally {
      release();
    }

    await waitFor(async () => (await handled(groupId, 'done')) === 10, 30_000, 'every message handled');
    await waitFor(async () => (await lag()) === 0, 10_000, 'the lag to drop to 0');
  });
});

describe('processed_events retention', () => {
  it('forgets handled event ids older than the retention when the service starts, and keeps newer ones', async () => {
    const [topic, groupId] = [uniqueName('retention'), uniqueName('group')];
    await createTopic(brokers, topic, 1);
    const pool = test.platform.database.pool;
    const [old, recent] = [testEvent('a').eventId, testEvent('b').eventId];
    await pool.query(
      `INSERT INTO processed_events (consumer_group, event_id, topic, processed_at)
       VALUES ($1, $2, $3, now() - interval '25 hours'), ($1, $4, $3, now() - interval '23 hours')`,
      [groupId, old, topic, recent],
    );
    await start([countingGroup(groupId, topic)], { processedEventsRetentionHours: 24 });
    await waitFor(async () => !(await processedEventIds(pool, groupId)).includes(old), 10_000, 'the old event id to be pruned');
    expect(await processedEventIds(pool, groupId)).toEqual([recent]);
  });
});
