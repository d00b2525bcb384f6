import { searchEnginesFor, type SearchConfig } from '@shop/platform';
import { defineSubscription, type TopicSubscription } from '../events/index.ts';
import { refreshCustomers, refreshOrders, refreshProducts } from './search-refresh.ts';

/**
 * Keeps the admin and storefront indexes current from the topics that name an order, a customer or a
 * product. The handler re-reads the row instead of trusting the payload, so a late or repeated event
 * still leaves the current state. With PostgreSQL full text it writes in the transaction that records
 * the event, so it happens once; Meilisearch is written before that commits, so a failure after it
 * makes the event run again, which rewrites the same documents. `config`, the process's own, selects
 * the engine of each index.
 */
export const searchSubscription = (config: SearchConfig): TopicSubscription =>
  defineSubscription({
    name: 'shop.search',
    topics: [
      'shop.orders.placed.v1',
      'shop.orders.modified.v1',
      'shop.orders.status_changed.v1',
      'shop.accounts.created.v1',
      'shop.catalog.product_changed.v1',
    ],
    async handle(tx, event) {
      const engines = searchEnginesFor(config, tx);
      if (event.topic === 'shop.accounts.created.v1') await refreshCustomers(tx, engines.admin, [BigInt(event.payload.customer_id)]);
      else if (event.topic === 'shop.catalog.product_changed.v1') await refreshProducts(tx, engines, [BigInt(event.payload.product_id)]);
      else await refreshOrders(tx, engines.admin, [BigInt(event.payload.order_id)]);
    },
  });
