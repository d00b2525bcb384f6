import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type IHeaders, type KafkaMessage } from 'kafkajs';
import { EVENT_ID_HEADER } from '@shop/platform';
import { readUntil } from '../../../../test/support/wait.ts';

export { EVENT_ID_HEADER };

export function testKafka(brokers: string): Kafka {
  return new Kafka({ clientId: 'consumer-test', brokers: [brokers], logLevel: logLevel.NOTHING });
}

export async function createTopic(brokers: string, topic: string, numPartitions: number): Promise<void> {
  const admin = testKafka(brokers).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

export interface TestEvent {
  readonly eventId: string;
  readonly key: string;
  readonly payload: Record<string, unknown>;
}

/** An event in the relay's envelope; `fields` are added to the payload. */
export function testEvent(key: string, fields: Record<string, unknown> = {}): TestEvent {
  const eventId = randomUUID();
  return { eventId, key, payload: { event_id: eventId, schema_version: 1, occurred_at: new Date().toISOString(), ...fields } };
}

export interface RawMessage {
  readonly key: string | null;
  readonly value: string | null;
  readonly headers?: IHeaders;
}

/** Produces in the relay's wire format: key = entity id, value = JSON payload, header `event-id`. */
export async function produceEvents(brokers: string, topic: string, events: readonly TestEvent[]): Promise<void> {
  await produceRaw(
    brokers,
    topic,
    events.map((event) => ({ key: event.key, value: JSON.stringify(event.payload), headers: { [EVENT_ID_HEADER]: event.eventId } })),
  );
}

export async function produceRaw(brokers: string, topic: string, messages: readonly RawMessage[]): Promise<void> {
  const producer = testKafka(brokers).producer();
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: [...messages] });
  } finally {
    await producer.disconnect();
  }
}

/** Reads `count` messages of a topic from its beginning with a throwaway group. */
export async function readMessages(brokers: string, topic: string, count: number, timeoutMs = 30_000): Promise<KafkaMessage[]> {
  const consumer = testKafka(brokers).consumer({ groupId: `reader-${randomUUID()}`, maxWaitTimeInMs: 200 });
  const received: KafkaMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        received.push(message);
      },
    });
    await readUntil(
      () => received.length,
      (length) => length >= count,
      { timeoutMs, intervalMs: 100 },
    );
  } finally {
    await consumer.disconnect();
  }
  return received;
}

export function header(message: KafkaMessage, name: string): string | undefined {
  return message.headers?.[name]?.toString();
}
