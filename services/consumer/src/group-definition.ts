import type { Prisma } from '@shop/platform';
import type { EventPayloads, TopicName } from '@shop/platform';

/** The client a handler writes through: the transaction that also records the event as processed. */
export type TransactionClient = Prisma.TransactionClient;

interface MessageOf<T extends TopicName> {
  readonly topic: T;
  /** The entity id the producer keyed the message by (null only for messages produced by hand). */
  readonly key: string | null;
  readonly eventId: string;
  /** The payload as produced: the producer validated it against its schema (or warned, in warn mode). */
  readonly payload: EventPayloads[T];
  readonly partition: number;
  readonly offset: string;
}

/** A decoded message; narrowing on `topic` narrows `payload`. */
export type ConsumedMessage<T extends TopicName = TopicName> = { [K in T]: MessageOf<K> }[T];

/**
 * One Kafka consumer group: the topics it reads and what it does with each message. The handler
 * runs inside the transaction that records the event in processed_events, so its database effect
 * and that record commit together; a redelivered event never reaches it twice.
 */
export interface ConsumerGroupDefinition<T extends TopicName = TopicName> {
  /** Stable Kafka group id, `shop.<purpose>`: offsets, processed_events rows and the DLQ are keyed by it. */
  readonly groupId: string;
  readonly topics: readonly T[];
  handle(tx: TransactionClient, message: ConsumedMessage<T>): Promise<void>;
}

/** Infers the topics of a definition, so its handler sees each topic's payload type. */
export function defineConsumerGroup<T extends TopicName>(definition: ConsumerGroupDefinition<T>): ConsumerGroupDefinition {
  return definition;
}
