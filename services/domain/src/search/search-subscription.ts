import { postgresSearchEngine } from '@shop/platform';
import { defineSubscription } from '../subscriptions/topic-subscription.ts';
import { refreshCustomers, refreshOrders } from './search-refresh.ts';

/**
 * Keeps the admin index current from the topics that name an order or a customer. The handler re-reads
 * the row instead of trusting the payload, so a late or repeated event still leaves the current state.
 * It writes to the PostgreSQL engine in the transaction that records the event, so it happens once.
 */
export const searchSubscription = defineSubscription({
  name: 'shop.search',
  topics: ['shop.orders.placed.v1', 'shop.orders.modified.v1', 'shop.accounts.created.v1'],
  async handle(tx, event) {
    const engine = postgresSearchEngine(tx);
    if (event.topic === 'shop.accounts.created.v1') await refreshCustomers(tx, engine, [BigInt(event.payload.customer_id)]);
    else await refreshOrders(tx, engine, [BigInt(event.payload.order_id)]);
  },
});
