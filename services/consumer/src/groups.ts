import { type TopicSubscription } from '@shop/domain/events';
import { topicSubscriptions } from '@shop/domain/subscriptions';
import type { SearchConfig } from '@shop/platform';
import type { ConsumerGroupDefinition } from './group-definition.ts';

/** A domain subscription as a Kafka consumer group of the same name. */
export function consumerGroupOf(subscription: TopicSubscription): ConsumerGroupDefinition {
  return {
    groupId: subscription.name,
    topics: subscription.topics,
    handle: (tx, message) => subscription.handle(tx, { topic: message.topic, eventId: message.eventId, payload: message.payload } as never),
  };
}

/** Every consumer group this service runs, one kafkajs consumer each: the domain's topic subscriptions. */
export function consumerGroups(config: SearchConfig): readonly ConsumerGroupDefinition[] {
  return topicSubscriptions(config).map(consumerGroupOf);
}
