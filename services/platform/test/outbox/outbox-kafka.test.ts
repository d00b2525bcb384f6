import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { startKafka, type ServerHandle } from '../../../../test/infra/servers.ts';
import { createTestDatabase, uniqueName, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { applyMigrations } from '../../src/db/migrations/index.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '@shop/runtime';
import { openPlatform, type Platform } from '../../src/platform.ts';
import { startOutbox, type RunningOutbox } from '../../src/outbox/outbox.ts';
import { EVENT_ID_HEADER, KafkaPublisher } from '../../src/outbox/kafka-publisher.ts';
import { examplePayload } from '../support/outbox.ts';
import { TOPICS } from '../../src/events/catalog.ts';
import { waitFor } from '../../../../test/support/wait.ts';

const TOPIC = 'shop.leads.created.v1';
const EVENTS = 1_000;
const KEYS = 20;

let kafka: ServerHandle;
let database: TestDatabase;
let platform: Platform;
let outbox: RunningOutbox;

beforeAll(async () => {
  [kafka, database] = await Promise.all([startKafka(), createTestDatabase('outbox_kafka')]);
  await applyMigrations(database.url);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl'), BROKER_ADDRESS: kafka.url });
  platform = await openPlatform(config, createLogger({ level: 'ERROR', service: 'test' }), 'test');
  const admin = new Kafka({ clientId: 'test', brokers: [kafka.url], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  // Two partitions, where the broker's default is three: the relay must leave a pre-created topic as it is.
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }], waitForLeaders: true });
  await admin.disconnect();
  outbox = startOutbox(platform);
});

afterAll(async () => {
  await outbox?.stop();
  await platform?.close();
  await Promise.all([kafka?.dispose(), database?.drop()]);
});

const unpublished = async () =>
  (await platform.database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL')).rows[0]?.n;

/** How many records the topic holds: the sum of its partitions' end offsets (it is fresh, and nothing is transactional). */
async function recordsIn(topic: string): Promise<number> {
  const admin = new Kafka({ clientId: 'test', brokers: [kafka.url], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, partition) => sum + Number(partition.high), 0);
  } finally {
    await admin.disconnect();
  }
}

it('delivers every event emitted while Kafka was down exactly once, in per-key order, once it is back', async () => {
  await kafka.stop();

  const expectedByKey = new Map<string, string[]>();
  for (let batch = 0; batch < EVENTS / 10; batch += 1) {
    await outbox.transaction(async (tx) => {
      for (let i = 0; i < 10; i += 1) {
        const leadId = String(1 + ((batch * 10 + i) % KEYS));
        const eventId = randomUUID();
        expectedByKey.set(leadId, [...(expectedByKey.get(leadId) ?? []), eventId]);
        await outbox.emit(tx, TOPIC, examplePayload(TOPIC, { event_id: eventId, lead_id: leadId }));
      }
    });
  }

  await kafka.start();
  const consumer = new Kafka({ clientId: 'test', brokers: [kafka.url], logLevel: logLevel.NOTHING }).consumer({
    groupId: uniqueName('outbox'),
  });
  const receivedByKey = new Map<string, string[]>();
  let received = 0;
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const key = message.key?.toString() ?? '';
      const eventId = message.headers?.[EVENT_ID_HEADER]?.toString() ?? '';
      expect(JSON.parse(message.value?.toString() ?? '{}').event_id).toBe(eventId);
      receivedByKey.set(key, [...(receivedByKey.get(key) ?? []), eventId]);
      received += 1;
    },
  });
  try {
    // Once no row waits, the relay has published everything and the topic holds every record it will get,
    // duplicates included; the consumer has seen them all once it has read as many as the topic holds.
    await waitFor(async () => (await unpublished()) === 0, 90_000, 'the relay to publish every event');
    const inTopic = await recordsIn(TOPIC);
    await waitFor(() => received >= inTopic, 30_000, `the consumer to read the ${inTopic} records of the topic`);
  } finally {
    await consumer.disconnect();
  }

  expect(received).toBe(EVENTS);
  expect(new Map([...receivedByKey].sort())).toEqual(new Map([...expectedByKey].sort()));
  expect(await unpublished()).toBe(0);
});

it('creates the missing registry topics with the broker defaults once connected, and leaves existing ones alone', async () => {
  const admin = new Kafka({ clientId: 'test', brokers: [kafka.url], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = await admin.listTopics();
    for (const topic of Object.keys(TOPICS)) expect(topics).toContain(topic);
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [TOPIC, 'shop.orders.placed.v1'] });
    expect(Object.fromEntries(metadata.map((topic) => [topic.name, topic.partitions.length]))).toEqual({
      [TOPIC]: 2,
      'shop.orders.placed.v1': 3,
    });
  } finally {
    await admin.disconnect();
  }
});

it('splits a batch larger than Kafka accepts in one request into several, keeping their order', async () => {
  const topic = uniqueName('shop.test.large');
  const kafkaClient = new Kafka({ clientId: 'test', brokers: [kafka.url], logLevel: logLevel.NOTHING });
  const admin = kafkaClient.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  // 1.5 MiB for one partition: over the broker's default 1 MiB limit for a single record batch.
  const messages = Array.from({ length: 15 }, (_, i) => ({
    id: String(i),
    eventId: randomUUID(),
    topic,
    key: 'one-entity',
    value: JSON.stringify({ position: i, filler: 'x'.repeat(100 * 1024) }),
    createdAt: new Date(),
  }));
  const publisher = new KafkaPublisher(kafkaClient, platform.logger);
  await publisher.publish(messages);
  await publisher.close();

  const consumer = kafkaClient.consumer({ groupId: uniqueName('large') });
  const positions: number[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void positions.push(JSON.parse(message.value?.toString() ?? '{}').position) });
  try {
    await expect.poll(() => positions.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(messages.length);
  } finally {
    await consumer.disconnect();
  }
  expect(positions).toEqual(messages.map((_, i) => i));
});
