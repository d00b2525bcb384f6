export { auditSubscription } from './audit-subscription.ts';
