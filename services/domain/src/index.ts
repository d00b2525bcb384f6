export { topicSubscriptions } from './subscriptions/index.ts';
export { defineSubscription, subscriptionListeners, type TopicEvent, type TopicSubscription } from './subscriptions/topic-subscription.ts';
export { auditSubscription } from './audit/audit-subscription.ts';
export { DomainError, type DomainErrorCode } from './errors/domain-error.ts';
export { ORDER_TRANSITIONS, assertTransition, canTransition, holdsReservations } from './orders/order-status.ts';
