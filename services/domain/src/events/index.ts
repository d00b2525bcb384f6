export { extensionSubscriptions } from './extension-subscriptions.ts';
export { defineSubscription, subscriptionListeners, type TopicSubscription } from './topic-subscription.ts';
