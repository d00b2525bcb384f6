import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { postgresSearchEngine } from '@shop/platform';
import { createStaffUser, ensureRole } from '@shop/domain/auth';
import { reindexSearch } from '@shop/domain/search';
import { checkQueryLimits } from '../../src/graphql/query-limits.ts';
import { bearer, openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;
let admin: Record<string, string>;
let channelId: string;
let locationId: string;

const WEB = { 'x-channel-id': 'web' };
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
const CREATE_PRODUCT = 'mutation ($input: ProductInput!) { createProduct(input: $input) { id } }';
const PAGE = 'totalCount pageInfo { endCursor hasNextPage }';
const SEARCH_ORDERS = `query ($text: String!, $status: OrderStatus) { searchOrders(text: $text, status: $status) { nodes { id number status email total currency } ${PAGE} } }`;
const SEARCH_CUSTOMERS = `query ($text: String!) { searchCustomers(text: $text) { nodes { id email firstName lastName isBusiness } ${PAGE} } }`;
const SEARCH_ADMIN_PRODUCTS = `query ($text: String!) { searchAdminProducts(text: $text) { nodes { id sku name active } ${PAGE} } }`;
const SEARCH_PRODUCTS = `query ($text: String!, $first: Int, $after: String, $categoryId: ID) {
  searchProducts(text: $text, first: $first, after: $after, categoryId: $categoryId) { nodes { id sku name slug price currency brandName categoryIds } ${PAGE} }
}`;

interface Page<T> {
  readonly nodes: T[];
  readonly totalCount: number;
  readonly pageInfo: { endCursor: string | null; hasNextPage: boolean };
}

beforeAll(async () => {
  api = await openGraphqlApi('graphql_search');
  ({ channelId, locationId, admin } = await seedDemoShop(api));
});

afterAll(async () => {
  await api?.close();
});

async function newProduct(name: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const slug = name.toLowerCase().replaceAll(' ', '-');
  const input = { sku: slug.toUpperCase(), name, slug, price: '12.50', currency: 'EUR', channelIds: [channelId], ...overrides };
  return (await api.data<{ createProduct: { id: string } }>(CREATE_PRODUCT, { input }, admin)).createProduct.id;
}

/** A guest's order of one unit of the product, placed in the web channel. */
async function orderOf(productId: string, email: string): Promise<{ id: string; number: string }> {
  await api.data(
    'mutation ($input: SetStockOnHandInput!) { setStockOnHand(input: $input) { onHand } }',
    { input: { productId, locationId, onHand: 5 } },
    admin,
  );
  const shopper = { ...WEB, 'x-session-id': await api.guestSession() };
  const { createCart } = await api.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, shopper);
  await api.data(
    'mutation ($cartId: ID!, $productId: ID!) { addCartLine(cartId: $cartId, productId: $productId, quantity: 1) { id } }',
    { cartId: createCart.id, productId },
    shopper,
  );
  const { placeOrder } = await api.data<{ placeOrder: { id: string; number: string } }>(
    'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id number } }',
    { input: { cartId: createCart.id, email, billingAddress: ADDRESS } },
    shopper,
  );
  return placeOrder;
}

/** What `npm run search:reindex` does: the documents of every row, in the api's database. */
async function reindex(): Promise<void> {
  const { prisma } = api.platform.database;
  await reindexSearch(prisma, postgresSearchEngine(prisma));
}

async function staffWith(permission: 'orders.read', email: string): Promise<Record<string, string>> {
  await api.prisma.$transaction(async (tx) => {
    await ensureRole(tx, { name: `only-${permission}`, permissions: [permission] });
    await createStaffUser(tx, { email, password: 'search-password-1', name: 'Searcher', roles: [`only-${permission}`] });
  });
  const { loginStaff } = await api.data<{ loginStaff: { accessToken: string } }>(
    'mutation ($email: String!) { loginStaff(email: $email, password: "search-password-1") { accessToken } }',
    { email },
  );
  return bearer(loginStaff.accessToken);
}

describe('staff search', () => {
  let order: { id: string; number: string };
  let hidden: string;

  beforeAll(async () => {
    const kettle = await newProduct('Quasar Kettle');
    hidden = await newProduct('Quasar Teapot', { active: false });
    order = await orderOf(kettle, 'marie.curie@example.com');
    await api.data(
      'mutation ($input: RegisterCustomerInput!) { registerCustomer(input: $input) { accessToken } }',
      {
        input: { email: 'grace@navy.example', password: 'correct horse battery', firstName: 'Grace', lastName: 'Hopper', isBusiness: true },
      },
      WEB,
    );
    await reindex();
  });

  it('finds an order by its number, by the email and by a line, in its status', async () => {
    for (const text of [order.number, 'marie.curie', 'quasar kettle']) {
      const { searchOrders } = await api.data<{ searchOrders: Page<{ id: string; number: string; status: string; total: string }> }>(
        SEARCH_ORDERS,
        { text },
        admin,
      );
      expect(searchOrders).toMatchObject({
        nodes: [{ id: order.id, number: order.number, email: 'marie.curie@example.com', currency: 'EUR' }],
        totalCount: 1,
      });
    }
    const placed = await api.data<{ searchOrders: Page<{ status: string }> }>(SEARCH_ORDERS, { text: order.number }, admin);
    const status = placed.searchOrders.nodes[0]?.status;
    const other = status === 'CANCELLED' ? 'COMPLETED' : 'CANCELLED';
    expect(
      (await api.data<{ searchOrders: Page<unknown> }>(SEARCH_ORDERS, { text: order.number, status }, admin)).searchOrders.totalCount,
    ).toBe(1);
    expect(
      (await api.data<{ searchOrders: Page<unknown> }>(SEARCH_ORDERS, { text: order.number, status: other }, admin)).searchOrders
        .totalCount,
    ).toBe(0);
  });

  it('finds a customer by name and email, and a product whether active or not', async () => {
    const { searchCustomers } = await api.data<{ searchCustomers: Page<unknown> }>(SEARCH_CUSTOMERS, { text: 'grace hop' }, admin);
    expect(searchCustomers.nodes).toEqual([
      expect.objectContaining({ email: 'grace@navy.example', firstName: 'Grace', lastName: 'Hopper', isBusiness: true }),
    ]);
    expect(
      (await api.data<{ searchCustomers: Page<unknown> }>(SEARCH_CUSTOMERS, { text: 'navy.example' }, admin)).searchCustomers.totalCount,
    ).toBe(1);

    const { searchAdminProducts } = await api.data<{ searchAdminProducts: Page<{ name: string; active: boolean }> }>(
      SEARCH_ADMIN_PRODUCTS,
      { text: 'quasar' },
      admin,
    );
    expect(searchAdminProducts.nodes.map(({ name, active }) => [name, active]).sort()).toEqual([
      ['Quasar Kettle', true],
      ['Quasar Teapot', false],
    ]);
  });

  it('asks each field for its own permission', async () => {
    const clerk = await staffWith('orders.read', 'order-clerk@shop.test');
    expect((await api.data<{ searchOrders: Page<unknown> }>(SEARCH_ORDERS, { text: order.number }, clerk)).searchOrders.totalCount).toBe(1);
    expect(await api.error(SEARCH_CUSTOMERS, { text: 'grace' }, clerk)).toMatchObject({
      message: 'missing permission customers.read',
      extensions: { code: 'FORBIDDEN' },
    });
    expect(await api.error(SEARCH_ADMIN_PRODUCTS, { text: 'quasar' }, clerk)).toMatchObject({
      message: 'missing permission catalog.read',
      extensions: { code: 'FORBIDDEN' },
    });
    expect(await api.error(SEARCH_ORDERS, { text: order.number }, WEB)).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('keeps inactive products out of the storefront', async () => {
    const { searchProducts } = await api.data<{ searchProducts: Page<{ id: string }> }>(SEARCH_PRODUCTS, { text: 'quasar' }, WEB);
    expect(searchProducts.nodes.map((node) => node.id)).not.toContain(hidden);
    expect(searchProducts.totalCount).toBe(1);
  });
});

describe('storefront search', () => {
  let category: string;
  let ids: string[];

  beforeAll(async () => {
    const created = await api.data<{ createCategory: { id: string } }>(
      'mutation { createCategory(input: { name: "Nebula Gear", slug: "nebula-gear" }) { id } }',
      {},
      admin,
    );
    category = created.createCategory.id;
    ids = [];
    for (const name of ['Nebula Lamp', 'Nebula Lantern', 'Nebula Lens']) ids.push(await newProduct(name, { categoryIds: [category] }));
    await newProduct('Nebula Lace', { channelIds: [] });
    await reindex();
  });

  it("pages through the channel's matches, best first, with the total", async () => {
    const first = (
      await api.data<{ searchProducts: Page<{ id: string; name: string }> }>(SEARCH_PRODUCTS, { text: 'nebula l', first: 2 }, WEB)
    ).searchProducts;
    expect(first).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: true } });
    expect(first.nodes).toHaveLength(2);
    const second = (
      await api.data<{ searchProducts: Page<{ id: string }> }>(
        SEARCH_PRODUCTS,
        { text: 'nebula l', first: 2, after: first.pageInfo.endCursor },
        WEB,
      )
    ).searchProducts;
    expect(second).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: false } });
    expect([...first.nodes, ...second.nodes].map((node) => node.id).sort()).toEqual([...ids].sort());

    const { searchProducts } = await api.data<{ searchProducts: Page<unknown> }>(
      SEARCH_PRODUCTS,
      { text: 'lantern', categoryId: category },
      WEB,
    );
    expect(searchProducts.nodes).toEqual([
      {
        id: ids[1],
        sku: 'NEBULA-LANTERN',
        name: 'Nebula Lantern',
        slug: 'nebula-lantern',
        price: '12.50',
        currency: 'EUR',
        brandName: null,
        categoryIds: [category],
      },
    ]);
  });

  it('refuses bad input naming the argument', async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ text: 'lamp', first: 101 }, 'first'],
      [{ text: 'lamp', first: 0 }, 'first'],
      [{ text: 'x'.repeat(201) }, 'text'],
      [{ text: 'lamp', after: 'not-a-cursor' }, 'after'],
      [{ text: 'lamp', categoryId: 'shoes' }, 'categoryId'],
    ];
    for (const [variables, field] of refusals) {
      expect(await api.error(SEARCH_PRODUCTS, variables, WEB)).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field } });
    }
    expect(await api.error(SEARCH_PRODUCTS, { text: 'lamp' })).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
  });

  it("counts first in the query's cost like every other list", () => {
    const costOf = (first: number) =>
      checkQueryLimits(
        {
          schema: api.app.graphql.schema,
          document: parse(`{ searchProducts(text: "lamp", first: ${first}) { nodes { id } pageInfo { hasNextPage } } }`),
          variables: undefined,
          operationName: undefined,
        },
        { maxCost: 5_000, introspection: false },
      );
    // 1 + first × 2 (nodes, pageInfo): hits hold only scalars.
    expect([costOf(20), costOf(100)]).toEqual([41, 201]);
  });
});

it('hands BFFs no scoped search key while storefront search runs in PostgreSQL', async () => {
  expect(await api.data('{ storefrontSearchKey { host indexUid token expiresAt } }', {}, WEB)).toEqual({ storefrontSearchKey: null });
});
