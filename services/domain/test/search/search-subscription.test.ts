import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresSearchEngine, startOutbox, type RunningOutbox, type SearchEngine } from '@shop/platform';
import { registerCustomer } from '../../src/accounts/customers.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { updateBrand, updateCategory, updateProduct } from '../../src/catalog/catalog-changes.ts';
import { changeOrderAddresses } from '../../src/orders/order-transitions.ts';
import { ADMIN_INDEX, STOREFRONT_INDEX } from '../../src/search/search-indexes.ts';
import { subscriptionListeners } from '../../src/events/topic-subscription.ts';
import { topicSubscriptions } from '../../src/subscriptions/index.ts';
import { ADDRESS, openCommerce, seedCatalog, type Catalog, type Commerce } from '../support/commerce.ts';
import { cancelOrder } from '../../src/flows/order-cancellation.ts';

let commerce: Commerce;
let catalog: Catalog;
let outbox: RunningOutbox;
let engine: SearchEngine;

beforeAll(async () => {
  commerce = await openCommerce('search_events');
  catalog = await seedCatalog(commerce, 'se');
  engine = postgresSearchEngine(commerce.platform.database.prisma);
  // No BROKER_ADDRESS: the embedded mode, where the api's dispatcher runs the topic subscriptions; the consumer runs the same handler.
  outbox = startOutbox(commerce.platform, { listeners: subscriptionListeners(topicSubscriptions(commerce.platform.config)), idleMs: 20 });
});
afterAll(async () => {
  await outbox?.stop();
  await commerce?.close();
});

const found = async (text: string, kind: string) =>
  (await engine.search(ADMIN_INDEX, { text, filters: { kind }, limit: 10, offset: 0 })).hits.map((hit) => hit.id);

it('indexes a customer once the account is created, and an order once placed and again once its addresses change', async () => {
  const tee = await catalog.product('plain-tee', '15.00', 5);
  const customer = await commerce.transaction((tx) =>
    registerCustomer(tx, commerce.deps, {
      channelId: catalog.channelId,
      email: 'ada@example.com',
      password: 'correct horse battery',
      firstName: 'Ada',
    }),
  );
  await expect.poll(() => found('ada', 'customer'), { timeout: 10_000 }).toEqual([`customer:${customer.id}`]);

  const order = await commerce.transaction(async (tx) => {
    const shopper = { customerId: customer.id };
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId: tee, quantity: 1 });
    return placeOrder(tx, commerce.deps, {
      cartId: cart.id,
      shopper,
      email: customer.email,
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
    });
  });
  await expect.poll(() => found(order.number, 'order'), { timeout: 10_000 }).toEqual([`order:${order.id}`]);
  expect(await found('hopper', 'order')).toEqual([]);

  await commerce.transaction((tx) =>
    changeOrderAddresses(tx, commerce.deps, order.id, { shippingAddress: { ...ADDRESS, name: 'Grace Hopper' } }),
  );
  await expect.poll(() => found('hopper', 'order'), { timeout: 10_000 }).toEqual([`order:${order.id}`]);
});

const storefront = async (text: string, filters: Record<string, string> = {}) =>
  (
    await engine.search(STOREFRONT_INDEX, { text, filters: { channel: String(catalog.channelId), ...filters }, limit: 10, offset: 0 })
  ).hits.map((hit) => hit.id);

it('indexes a product once created, and again after each edit of it, its brand or its category', async () => {
  const id = await catalog.product('orbit-mug', '9.50', 5);
  await expect.poll(() => storefront('orbit mug'), { timeout: 10_000 }).toEqual([String(id)]);
  expect(await found('orbit', 'product')).toEqual([`product:${id}`]);

  await commerce.transaction((tx) => updateProduct(tx, commerce.deps, id, { name: 'Comet Cup' }));
  await expect.poll(() => storefront('comet cup'), { timeout: 10_000 }).toEqual([String(id)]);

  await commerce.transaction((tx) => updateBrand(tx, commerce.deps, catalog.brandId, { name: 'Stellarware' }));
  await expect.poll(() => storefront('stellarware cup'), { timeout: 10_000 }).toEqual([String(id)]);

  const [tees] = catalog.categoryIds;
  await commerce.transaction((tx) => updateCategory(tx, commerce.deps, tees as bigint, { name: 'Drinkware' }));
  await expect.poll(() => storefront('drinkware comet'), { timeout: 10_000 }).toEqual([String(id)]);

  await commerce.transaction((tx) => updateProduct(tx, commerce.deps, id, { active: false }));
  await expect.poll(() => storefront('comet'), { timeout: 10_000 }).toEqual([]);
  expect(await found('comet', 'product')).toEqual([`product:${id}`]);
});

it("refreshes an order's status once it moves after placement", async () => {
  const mug = await catalog.product('status-mug', '4.00', 5);
  const order = await commerce.transaction(async (tx) => {
    const shopper = { sessionId: 'search-status' };
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId: mug, quantity: 1 });
    return placeOrder(tx, commerce.deps, {
      cartId: cart.id,
      shopper,
      email: 'status@example.com',
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
    });
  });
  const inStatus = async (status: string) =>
    (await engine.search(ADMIN_INDEX, { text: order.number, filters: { kind: 'order', status }, limit: 10, offset: 0 })).hits.map(
      (hit) => hit.id,
    );
  await expect.poll(() => inStatus(order.status), { timeout: 10_000 }).toEqual([`order:${order.id}`]);

  await commerce.transaction((tx) => cancelOrder(tx, commerce.deps, order.id, 'changed my mind'));
  await expect.poll(() => inStatus('CANCELLED'), { timeout: 10_000 }).toEqual([`order:${order.id}`]);
  expect(await inStatus(order.status)).toEqual([]);
});

it('leaves the index as it was when the same events are delivered again', async () => {
  const documents = async () =>
    (await engine.search(ADMIN_INDEX, { text: '', limit: 100, offset: 0 })).hits.toSorted((a, b) => a.id.localeCompare(b.id));
  const pool = commerce.platform.database.pool;
  const deliveries = async () => (await pool.query('SELECT count(*)::int AS n FROM outbox_deliveries')).rows[0].n as number;
  // Every event finished first: a document is written before its event is marked dispatched.
  const undispatched = async () =>
    (await pool.query('SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL')).rows[0].n as number;
  await expect.poll(undispatched, { timeout: 10_000 }).toBe(0);
  const [before, delivered] = [await documents(), await deliveries()];
  await pool.query('DELETE FROM outbox_deliveries');
  await pool.query('UPDATE outbox_events SET dispatched_at = NULL, published_at = NULL, next_attempt_at = now()');
  await expect.poll(deliveries, { timeout: 10_000 }).toBe(delivered);
  expect(await documents()).toEqual(before);
});
