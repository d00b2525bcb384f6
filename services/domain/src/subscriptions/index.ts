import type { SearchConfig } from '@shop/platform';
import { auditSubscription } from '../audit/index.ts';
import { searchSubscription } from '../search/index.ts';
import type { TopicSubscription } from '../events/index.ts';

/**
 * Every topic subscription of the platform. To add one, define it in its area's folder and list it
 * here: the consumer runs it as a Kafka consumer group, the embedded api as outbox listeners. Its
 * name must stay stable (offsets, processed_events rows, deliveries and dead letters are keyed by it).
 */
export function topicSubscriptions(config: SearchConfig): readonly TopicSubscription[] {
  return [auditSubscription, searchSubscription(config)];
}
