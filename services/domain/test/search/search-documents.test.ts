import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresSearchEngine, type OrderStatus, type SearchEngine } from '@shop/platform';
import { updateProduct } from '../../src/catalog/catalog-changes.ts';
import { createChannel } from '../../src/catalog/catalog-admin.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { registerCustomer } from '../../src/accounts/customers.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { customerDocuments } from '../../src/search/customer-documents.ts';
import { orderDocuments } from '../../src/search/order-documents.ts';
import { productDocuments } from '../../src/search/product-documents.ts';
import { reindexSearch, type ReindexProgress } from '../../src/search/reindex.ts';
import { ADMIN_INDEX, STOREFRONT_INDEX } from '../../src/search/search-indexes.ts';
import { searchAdmin, searchStorefront } from '../../src/search/search-queries.ts';
import { ADDRESS, openCommerce, seedCatalog, type Catalog, type Commerce } from '../support/commerce.ts';

let commerce: Commerce;
let catalog: Catalog;
let engine: SearchEngine;

beforeAll(async () => {
  commerce = await openCommerce('search_documents');
  catalog = await seedCatalog(commerce, 'sd');
  engine = postgresSearchEngine(commerce.platform.database.prisma);
});
afterAll(async () => commerce?.close());

const [apparelOnly, teesOfApparel] = [1, 0];
const storefrontIds = async (text: string, filters: Record<string, string>) =>
  (await engine.search(STOREFRONT_INDEX, { text, filters, limit: 50, offset: 0 })).hits.map((hit) => hit.id);

it('makes an admin document of every product and a storefront one of each active product sold in a channel', async () => {
  const [active, inactive, unlisted] = [
    await catalog.product('linen-shirt', '39.90', 5),
    await catalog.product('retired-shirt', '39.90', 5),
    await catalog.product('unlisted-shirt', '39.90', 5),
  ];
  await commerce.transaction(async (tx) => {
    await updateProduct(tx, commerce.deps, inactive, { active: false });
    await updateProduct(tx, commerce.deps, unlisted, { channelIds: [] });
  });

  const documents = await commerce.transaction((tx) => productDocuments(tx, [active, inactive, unlisted]));

  expect(documents.admin.map((document) => [document.id, document.filters.active])).toEqual([
    [`product:${active}`, ['true']],
    [`product:${inactive}`, ['false']],
    [`product:${unlisted}`, ['true']],
  ]);
  expect(documents.storefront).toEqual([
    {
      id: `${active}`,
      title: 'linen-shirt',
      body: 'sd-linen-shirt Acme Tees Apparel',
      filters: {
        channel: [`${catalog.channelId}`],
        category: expect.arrayContaining([`${catalog.categoryIds[teesOfApparel]}`, `${catalog.categoryIds[apparelOnly]}`]),
        brand: [`${catalog.brandId}`],
      },
      data: {
        id: `${active}`,
        sku: 'sd-linen-shirt',
        name: 'linen-shirt',
        slug: 'sd-linen-shirt',
        price: '39.90',
        currency: 'EUR',
        imageKey: null,
        brandName: 'Acme',
        categoryIds: catalog.categoryIds.map(String),
      },
    },
  ]);
});

it('rebuilds both indexes from PostgreSQL with progress, dropping documents of rows that are gone', async () => {
  const other = await commerce.transaction((tx) => createChannel(tx, { code: 'sd-other', name: 'Other', defaultCurrency: 'EUR' }));
  const hoodie = await catalog.product('wool-hoodie', '59.00', 3);
  await engine.index(STOREFRONT_INDEX, [
    { id: '999999', title: 'Deleted hoodie', body: '', filters: { channel: [`${catalog.channelId}`] }, data: {} },
  ]);
  const progress: ReindexProgress[] = [];

  const result = await reindexSearch(commerce.platform.database.prisma, engine, {
    batchSize: 2,
    onProgress: (step) => progress.push(step),
  });

  const products = await commerce.platform.database.prisma.product.count();
  expect(result.rows).toBe(products * 2);
  expect(
    progress
      .filter((step) => step.index === STOREFRONT_INDEX)
      .map(({ done, left }) => [done, left])
      .at(-1),
  ).toEqual([products, 0]);
  expect(progress.every((step) => step.rowsPerSecond > 0)).toBe(true);
  expect(await storefrontIds('hoodie', { channel: `${catalog.channelId}` })).toEqual([`${hoodie}`]);
  expect(await storefrontIds('hoodie', { channel: `${other.id}` })).toEqual([]);
  expect(await storefrontIds('shirt', { channel: `${catalog.channelId}`, category: `${catalog.categoryIds[apparelOnly]}` })).toHaveLength(
    1,
  );
  expect((await engine.search(ADMIN_INDEX, { text: 'shirt', filters: { kind: 'product' }, limit: 50, offset: 0 })).total).toBe(3);
});

it('makes order and customer documents findable by number, email, names and what was bought', async () => {
  const tee = await catalog.product('striped-tee', '19.90', 5);
  const { customer, order } = await commerce.transaction(async (tx) => {
    const customer = await registerCustomer(tx, commerce.deps, {
      channelId: catalog.channelId,
      email: 'grace@example.com',
      password: 'correct horse battery',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    const shopper = { customerId: customer.id };
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId: tee, quantity: 2 });
    const order = await placeOrder(tx, commerce.deps, {
      cartId: cart.id,
      shopper,
      email: customer.email,
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
    });
    return { customer, order };
  });

  const orders = await commerce.transaction((tx) => orderDocuments(tx, [order.id, 424242n]));
  const customers = await commerce.transaction((tx) => customerDocuments(tx, [customer.id]));
  await engine.index(ADMIN_INDEX, [...orders, ...customers]);
  const [orderDocument, customerDocument] = [orders[0], customers[0]];

  expect(orders).toHaveLength(1);
  expect(orderDocument).toMatchObject({
    title: order.number,
    filters: { kind: ['order'], channel: [`${catalog.channelId}`], status: [order.status] },
    data: { kind: 'order', id: `${order.id}`, number: order.number, email: 'grace@example.com', total: order.total.toFixed(2) },
  });
  const adminIds = async (text: string, kind: string) =>
    (await engine.search(ADMIN_INDEX, { text, filters: { kind }, limit: 10, offset: 0 })).hits.map((hit) => hit.id);
  expect(await adminIds(order.number, 'order')).toEqual([`order:${order.id}`]);
  expect(await adminIds('lovelace striped', 'order')).toEqual([`order:${order.id}`]);
  expect(await adminIds('hopper', 'order')).toEqual([`order:${order.id}`]);
  expect(await adminIds('grace@example.com', 'customer')).toEqual([`customer:${customer.id}`]);
  expect(customerDocument?.title).toBe('Grace Hopper');
});

it('searches the storefront of one channel and the admin index by kind and status, refusing bad pages', async () => {
  const mug = await catalog.product('travel-mug', '12.00', 4);
  await reindexSearch(commerce.platform.database.prisma, engine);

  const storefront = await searchStorefront(engine, {
    channelId: catalog.channelId,
    text: 'travel mug',
    categoryId: catalog.categoryIds[apparelOnly],
    limit: 5,
    offset: 0,
  });
  expect(storefront).toEqual({ hits: [expect.objectContaining({ id: `${mug}` })], total: 1 });
  expect((await searchStorefront(engine, { channelId: catalog.channelId, text: 'mug', brandId: 424242n, limit: 5, offset: 0 })).total).toBe(
    0,
  );

  const order = await commerce.platform.database.prisma.order.findFirstOrThrow();
  const orders = (status: OrderStatus) => searchAdmin(engine, { kind: 'order', status, text: '', limit: 5, offset: 0 });
  expect((await orders(order.status)).hits.map((hit) => hit.id)).toEqual([`order:${order.id}`]);
  expect((await orders('CANCELLED')).total).toBe(0);
  expect((await searchAdmin(engine, { kind: 'customer', channelId: catalog.channelId, text: 'hopper', limit: 5, offset: 0 })).total).toBe(
    1,
  );

  await expect(searchAdmin(engine, { text: '', limit: 0, offset: 0 })).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    details: { field: 'limit' },
  });
  await expect(searchAdmin(engine, { text: '', limit: 5, offset: 10_001 })).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    details: { field: 'offset' },
  });
  await expect(
    searchStorefront(engine, { channelId: catalog.channelId, text: 'x'.repeat(201), limit: 5, offset: 0 }),
  ).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    details: { field: 'text' },
  });
});
