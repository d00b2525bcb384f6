export { topicSubscriptions } from './subscriptions/index.ts';
export { defineSubscription, subscriptionListeners, type TopicEvent, type TopicSubscription } from './subscriptions/topic-subscription.ts';
export { auditSubscription } from './audit/audit-subscription.ts';
