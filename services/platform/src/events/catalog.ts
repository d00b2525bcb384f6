import type { EventPayloads } from './payloads.generated.ts';

export type { EventPayloads } from './payloads.generated.ts';

/** Events delivered to listeners in the emitting service, never to the broker. */
export const IN_PROCESS_EVENTS = [
  'cart.item_added',
  'order.completed',
  'order.status_changed',
  'customer.approval_changed',
  'payments.refund_requested',
] as const satisfies readonly (keyof EventPayloads)[];
export type InProcessEventName = (typeof IN_PROCESS_EVENTS)[number];

type TopicPayloads = Omit<EventPayloads, InProcessEventName>;

/**
 * Broker topics and the payload field that keys each message (one entity's events stay on one
 * partition, in order). Must agree with schemas/topics.md; `npm run check:events` verifies it.
 */
export const TOPICS = {
  'shop.orders.placed.v1': { partitionKey: 'order_id' },
  'shop.orders.modified.v1': { partitionKey: 'order_id' },
  'shop.orders.status_changed.v1': { partitionKey: 'order_id' },
  'shop.catalog.product_changed.v1': { partitionKey: 'product_id' },
  'shop.cart.line_added.v1': { partitionKey: 'cart_id' },
  'shop.inventory.stock_changed.v1': { partitionKey: 'product_id' },
  'shop.accounts.created.v1': { partitionKey: 'customer_id' },
  'shop.fraud.check_requested.v1': { partitionKey: 'order_id' },
  'shop.leads.created.v1': { partitionKey: 'lead_id' },
  'shop.approvals.reminder_due.v1': { partitionKey: 'subject_id' },
  'shop.payments.money_moved.v1': { partitionKey: 'tender_id' },
  'shop.payments.store_credit_moved.v1': { partitionKey: 'account_id' },
  'shop.returns.status_changed.v1': { partitionKey: 'return_id' },
  'shop.payments.refund_completed.v1': { partitionKey: 'order_id' },
} as const satisfies { readonly [N in keyof TopicPayloads]: { readonly partitionKey: keyof TopicPayloads[N] & string } };

export type TopicName = keyof typeof TOPICS;
export type EventName = TopicName | InProcessEventName;

export const EVENT_NAMES: readonly EventName[] = [...(Object.keys(TOPICS) as TopicName[]), ...IN_PROCESS_EVENTS];

export function isTopic(name: string): name is TopicName {
  return Object.hasOwn(TOPICS, name);
}

/** The message key of a topic event: its partition-key field as a string, '' when the field is missing. */
export function partitionKeyOf(name: TopicName, payload: Record<string, unknown>): string {
  const value = payload[TOPICS[name].partitionKey];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}
