import type { EventListener, EventPayloads, Prisma, TopicName } from '@shop/platform';

/** A topic event as a subscription sees it; narrowing on `topic` narrows `payload`. */
export type TopicEvent<T extends TopicName = TopicName> = {
  [K in T]: { readonly topic: K; readonly eventId: string; readonly payload: EventPayloads[K] };
}[T];

/**
 * What the platform does with events of some topics, written once and run in two places: by the
 * consumer service as a Kafka consumer group, or, with no broker configured, by the api's outbox
 * dispatcher as in-process listeners. Either way `handle` runs in the transaction that marks the
 * event handled, so its effect happens exactly once.
 */
export interface TopicSubscription<T extends TopicName = TopicName> {
  /** Stable name, `shop.<purpose>`: the Kafka group id and the dispatcher's listener name. */
  readonly name: string;
  readonly topics: readonly T[];
  handle(tx: Prisma.TransactionClient, event: TopicEvent<T>): Promise<void>;
}

/** Infers the topics of a subscription, so its handler sees each topic's payload type. */
export function defineSubscription<T extends TopicName>(subscription: TopicSubscription<T>): TopicSubscription {
  return subscription as unknown as TopicSubscription;
}

/** The subscriptions as outbox listeners, one per (subscription, topic), for the embedded mode. */
export function subscriptionListeners(subscriptions: readonly TopicSubscription[]): EventListener[] {
  return subscriptions.flatMap((subscription) =>
    subscription.topics.map((topic): EventListener => ({
      name: subscription.name,
      event: topic,
      handle: (tx, payload) => subscription.handle(tx, { topic, eventId: payload.event_id, payload } as TopicEvent),
    })),
  );
}
