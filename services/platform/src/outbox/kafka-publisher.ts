import { Partitioners, type Kafka, type Message, type Producer, type TopicMessages } from 'kafkajs';
import type { OutboxMessage, Publisher } from './publisher.ts';
import { ensureTopics } from '../broker/ensure-topics.ts';
import { TOPICS } from '../events/catalog.ts';
import type { Logger } from '@shop/runtime';

export const EVENT_ID_HEADER = 'event-id';

/**
 * Payload bytes per produce request. Kafka refuses a record batch over `message.max.bytes` (1 MiB by
 * default) for a partition; staying at half of it leaves room for keys, headers and framing.
 */
const MAX_REQUEST_BYTES = 512 * 1024;

/**
 * An idempotent producer (acks from all in-sync replicas, one request in flight) keyed by the
 * entity id, so one entity's events land on one partition in the order they were written.
 */
export class KafkaPublisher implements Publisher {
  readonly #kafka: Kafka;
  readonly #logger: Logger;
  readonly #producer: Producer;
  #connected: Promise<void> | undefined;

  constructor(kafka: Kafka, logger: Logger) {
    this.#kafka = kafka;
    this.#logger = logger;
    this.#producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      retry: { retries: 2, maxRetryTime: 2_000 },
      // Murmur2 on the key, as Java clients do, so other producers of a topic agree on partitions.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  async publish(messages: readonly OutboxMessage[]): Promise<void> {
    this.#connected ??= this.#connect().catch((error: unknown) => {
      this.#connected = undefined;
      throw error;
    });
    await this.#connected;
    // Requests go one after another, in outbox order, so a key's events never overtake each other.
    for (const request of requestsOf(messages)) await this.#producer.sendBatch({ acks: -1, topicMessages: request });
  }

  async #connect(): Promise<void> {
    await this.#producer.connect();
    await ensureTopics(this.#kafka, Object.keys(TOPICS), this.#logger);
  }

  async close(): Promise<void> {
    await this.#producer.disconnect();
  }
}

/** Consecutive runs of messages of at most MAX_REQUEST_BYTES of payload (at least one message each), grouped by topic. */
function* requestsOf(messages: readonly OutboxMessage[]): Generator<TopicMessages[]> {
  let byTopic = new Map<string, Message[]>();
  let bytes = 0;
  for (const message of messages) {
    if (bytes > 0 && bytes + Buffer.byteLength(message.value) > MAX_REQUEST_BYTES) {
      yield topicMessages(byTopic);
      byTopic = new Map();
      bytes = 0;
    }
    bytes += Buffer.byteLength(message.value);
    let batch = byTopic.get(message.topic);
    if (batch === undefined) byTopic.set(message.topic, (batch = []));
    batch.push({
      key: message.key,
      value: message.value,
      timestamp: String(message.createdAt.getTime()),
      headers: { [EVENT_ID_HEADER]: message.eventId },
    });
  }
  if (bytes > 0) yield topicMessages(byTopic);
}

const topicMessages = (byTopic: Map<string, Message[]>): TopicMessages[] => [...byTopic].map(([topic, messages]) => ({ topic, messages }));
