import { Partitioners, type Admin, type IHeaders, type Kafka, type KafkaMessage, type Producer } from 'kafkajs';
import type { Logger } from '@shop/platform';

/**
 * `dlq.<group>.<topic>`: one dead-letter topic per group and source topic. Registered topics are
 * `shop.<domain>.<event>.v<N>`, so a name starting with `dlq.` can never be mistaken for one, and
 * one group's failures never mix with another's.
 */
export function deadLetterTopic(groupId: string, topic: string): string {
  return `dlq.${groupId}.${topic}`;
}

/** Headers added to the original message's own (key, value and headers are kept as they were). */
export const DEAD_LETTER_HEADERS = {
  reason: 'dlq-reason',
  group: 'dlq-group',
  attempts: 'dlq-attempts',
  topic: 'dlq-original-topic',
  partition: 'dlq-original-partition',
  offset: 'dlq-original-offset',
  timestamp: 'dlq-original-timestamp',
} as const;

const MAX_REASON_LENGTH = 1_000;

export interface DeadLetter {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly message: KafkaMessage;
  readonly reason: string;
  /** Handler runs before giving up; 0 for a message that could not be decoded. */
  readonly attempts: number;
}

/** Publishes messages no retry can get through to their group's dead-letter topic. */
export class DeadLetterQueue {
  readonly #producer: Producer;

  constructor(kafka: Kafka) {
    // A dead letter keeps its key; the default partitioner places keys as the Java client does.
    this.#producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  }

  async connect(): Promise<void> {
    await this.#producer.connect();
  }

  /** Resolves once the broker acknowledged the copy (all in-sync replicas). */
  async send(letter: DeadLetter): Promise<void> {
    const { message } = letter;
    const headers: IHeaders = {
      ...message.headers,
      [DEAD_LETTER_HEADERS.reason]: letter.reason.slice(0, MAX_REASON_LENGTH),
      [DEAD_LETTER_HEADERS.group]: letter.groupId,
      [DEAD_LETTER_HEADERS.attempts]: String(letter.attempts),
      [DEAD_LETTER_HEADERS.topic]: letter.topic,
      [DEAD_LETTER_HEADERS.partition]: String(letter.partition),
      [DEAD_LETTER_HEADERS.offset]: message.offset,
      [DEAD_LETTER_HEADERS.timestamp]: message.timestamp,
    };
    await this.#producer.send({
      topic: deadLetterTopic(letter.groupId, letter.topic),
      acks: -1,
      messages: [{ key: message.key, value: message.value, headers }],
    });
  }

  async close(): Promise<void> {
    await this.#producer.disconnect();
  }
}

/**
 * Creates the dead-letter topics that do not exist yet (broker defaults for partitions and
 * replication), so the first dead letter does not depend on topic auto-creation. A cluster that
 * forbids it is only warned about: its operators create the topics.
 */
export async function createDeadLetterTopics(admin: Admin, topics: readonly string[], logger: Logger): Promise<void> {
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((topic) => !existing.has(topic));
    if (missing.length === 0) return;
    await admin.createTopics({ topics: missing.map((topic) => ({ topic })), waitForLeaders: true });
    logger.info({ topics: missing }, `created ${missing.length} dead-letter topics`);
  } catch (error) {
    logger.warn({ err: error, topics }, 'could not create the dead-letter topics; create them before a message fails');
  }
}
