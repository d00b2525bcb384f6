import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { OutboxMessage, Publisher } from './publisher.ts';

export const EVENT_ID_HEADER = 'event-id';

/**
 * An idempotent producer (acks from all in-sync replicas, one request in flight) keyed by the
 * entity id, so one entity's events land on one partition in the order they were written.
 */
export class KafkaPublisher implements Publisher {
  readonly #producer: Producer;
  #connected: Promise<void> | undefined;

  constructor(kafka: Kafka) {
    this.#producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      retry: { retries: 2, maxRetryTime: 2_000 },
      // Murmur2 on the key, as Java clients do, so other producers of a topic agree on partitions.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  async publish(messages: readonly OutboxMessage[]): Promise<void> {
    this.#connected ??= this.#producer.connect().catch((error: unknown) => {
      this.#connected = undefined;
      throw error;
    });
    await this.#connected;
    const byTopic = new Map<string, OutboxMessage[]>();
    for (const message of messages) byTopic.set(message.topic, [...(byTopic.get(message.topic) ?? []), message]);
    await this.#producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, batch]) => ({
        topic,
        messages: batch.map((message) => ({
          key: message.key,
          value: JSON.stringify(message.payload),
          timestamp: String(message.createdAt.getTime()),
          headers: { [EVENT_ID_HEADER]: message.eventId },
        })),
      })),
    });
  }

  async close(): Promise<void> {
    await this.#producer.disconnect();
  }
}
