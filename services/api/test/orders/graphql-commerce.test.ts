import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PRODUCTS } from '../../src/seed.ts';
import { bearer, openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;
let admin: Record<string, string>;
let channelId: string;
let locationId: string;

const WEB = { 'x-channel-id': 'web' };
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };

const PRODUCTS = `query ($first: Int, $after: String, $categoryId: ID, $brandId: ID, $search: String) {
  products(first: $first, after: $after, categoryId: $categoryId, brandId: $brandId, search: $search) {
    nodes { id sku price currency brand { slug } categories { slug } available imageUrl }
    pageInfo { endCursor hasNextPage }
  }
}`;
const CART_FIELDS = 'id currency itemCount subtotal shipping tax total lines { productId quantity unitPrice lineTotal product { sku } }';
const CREATE_CART = `mutation { createCart { ${CART_FIELDS} } }`;
const ADD_LINE = `mutation ($cartId: ID!, $productId: ID!, $quantity: Int!) { addCartLine(cartId: $cartId, productId: $productId, quantity: $quantity) { ${CART_FIELDS} } }`;
const SET_QUANTITY = `mutation ($cartId: ID!, $productId: ID!, $quantity: Int!) { setCartLineQuantity(cartId: $cartId, productId: $productId, quantity: $quantity) { ${CART_FIELDS} } }`;
const CART = `query ($id: ID!) { cart(id: $id) { ${CART_FIELDS} } }`;
const ORDER_FIELDS =
  'id number status email currency subtotal tax shipping discount total placedAt paidAt fulfilledAt completedAt cancelledAt cancelReason shippingAddress { city countryCode } lines { sku productName quantity unitPrice lineTotal }';
const PLACE_ORDER = `mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { ${ORDER_FIELDS} } }`;
const CREATE_PRODUCT =
  'mutation ($input: ProductInput!) { createProduct(input: $input) { id sku slug price active brand { slug } categories { slug } } }';
const SET_STOCK =
  'mutation ($input: SetStockOnHandInput!) { setStockOnHand(input: $input) { productId locationId onHand reserved available } }';

interface Product {
  readonly id: string;
  readonly sku: string;
  readonly price: string;
  readonly available: number;
  readonly brand: { slug: string } | null;
  readonly categories: { slug: string }[];
  readonly imageUrl: string | null;
}

interface Page {
  readonly nodes: Product[];
  readonly pageInfo: { endCursor: string | null; hasNextPage: boolean };
}

interface Cart {
  readonly id: string;
  readonly itemCount: number;
  readonly subtotal: string;
  readonly shipping: string;
  readonly tax: string;
  readonly total: string;
  readonly lines: { productId: string; quantity: number; unitPrice: string; lineTotal: string; product: { sku: string } }[];
}

interface Order {
  readonly id: string;
  readonly number: string;
  readonly status: string;
  readonly total: string;
  readonly [field: string]: unknown;
}

beforeAll(async () => {
  api = await openGraphqlApi('graphql_commerce');
  ({ channelId, locationId, admin } = await seedDemoShop(api));
});

afterAll(async () => {
  await api?.close();
});

async function productBySku(sku: string): Promise<Product> {
  const { products } = await api.data<{ products: Page }>(PRODUCTS, { search: sku, first: 100 }, WEB);
  const product = products.nodes.find((node) => node.sku === sku);
  if (product === undefined) throw new Error(`no product ${sku}`);
  return product;
}

let skus = 0;
/** A product of the web channel with stock, created through the admin API. */
async function newProduct(overrides: Record<string, unknown> = {}, onHand = 10): Promise<Product & { slug: string }> {
  skus += 1;
  const { createProduct } = await api.data<{ createProduct: Product & { slug: string } }>(
    CREATE_PRODUCT,
    {
      input: {
        sku: `T-${skus}`,
        name: `Test product ${skus}`,
        slug: `test-product-${skus}`,
        price: '10.00',
        currency: 'EUR',
        channelIds: [channelId],
        ...overrides,
      },
    },
    admin,
  );
  if (onHand > 0) await api.data(SET_STOCK, { input: { productId: createProduct.id, locationId, onHand, reason: 'restock' } }, admin);
  return createProduct;
}

async function guestCart(session: string, lines: [string, number][]): Promise<Cart> {
  const headers = { ...WEB, 'x-session-id': session };
  let { createCart: cart } = await api.data<{ createCart: Cart }>(CREATE_CART, {}, headers);
  for (const [productId, quantity] of lines)
    cart = (await api.data<{ addCartLine: Cart }>(ADD_LINE, { cartId: cart.id, productId, quantity }, headers)).addCartLine;
  return cart;
}

describe('browsing the storefront', () => {
  it("lists the channel's active products with brand, categories and stock", async () => {
    const { products } = await api.data<{ products: Page }>(PRODUCTS, { first: 3 }, WEB);
    expect(products.nodes.map((p) => p.sku)).toEqual(DEMO_PRODUCTS.slice(0, 3).map((p) => p.sku));
    expect(products.nodes[0]).toMatchObject({
      price: '19.90',
      brand: { slug: 'northwind' },
      categories: [{ slug: 't-shirts' }, { slug: 'apparel' }],
      available: 120,
    });
    expect(products.pageInfo.hasNextPage).toBe(true);
  });

  it('filters by category (with its subcategories), brand and search', async () => {
    const skusOf = async (variables: Record<string, unknown>) =>
      (await api.data<{ products: Page }>(PRODUCTS, { first: 100, ...variables }, WEB)).products.nodes.map((p) => p.sku);
    const { categories } = await api.data<{ categories: { id: string; slug: string; children: { id: string; slug: string }[] }[] }>(
      '{ categories { id slug children { id slug } } }',
    );
    const apparel = categories.find((c) => c.slug === 'apparel');
    const hoodies = apparel?.children.find((c) => c.slug === 'hoodies');
    expect(await skusOf({ categoryId: apparel?.id })).toEqual(['TEE-BLK', 'TEE-WHT', 'TEE-NAVY', 'HOOD-GRY', 'HOOD-OLV']);
    expect(await skusOf({ categoryId: hoodies?.id })).toEqual(['HOOD-GRY', 'HOOD-OLV']);
    const { brands } = await api.data<{ brands: { id: string; slug: string }[] }>('{ brands { id slug } }');
    const acme = brands.find((b) => b.slug === 'acme');
    expect(await skusOf({ brandId: acme?.id })).toEqual(['BAG-TOTE', 'CAP-BLK', 'CAP-BEIGE']);
    expect(await skusOf({ search: 'CAP' })).toEqual(['CAP-BLK', 'CAP-BEIGE']);
    expect(await skusOf({ search: 'hoodie', brandId: acme?.id })).toEqual([]);
    // Wildcards in a search are plain characters: "TEE_" and "%" match no SKU or name.
    expect(await skusOf({ search: 'tee-b' })).toEqual(['TEE-BLK']);
    expect(await skusOf({ search: 'TEE_' })).toEqual([]);
    expect(await skusOf({ search: '%' })).toEqual([]);
  });

  it("finds one product by id or slug, and hides inactive products and other channels' products", async () => {
    const tee = await productBySku('TEE-BLK');
    const PRODUCT = 'query ($id: ID, $slug: String) { product(id: $id, slug: $slug) { sku } }';
    expect(await api.data(PRODUCT, { id: tee.id }, WEB)).toEqual({ product: { sku: 'TEE-BLK' } });
    expect(await api.data(PRODUCT, { slug: 'tee-blk' }, WEB)).toEqual({ product: { sku: 'TEE-BLK' } });
    expect(await api.data(PRODUCT, { slug: 'no-such-thing' }, WEB)).toEqual({ product: null });
    expect((await api.error(PRODUCT, { id: tee.id, slug: 'tee-blk' }, WEB)).extensions.code).toBe('BAD_USER_INPUT');

    const inactive = await newProduct({ active: false });
    const hidden = await newProduct({ channelIds: [] });
    expect(await api.data(PRODUCT, { id: inactive.id }, WEB)).toEqual({ product: null });
    expect(await api.data(PRODUCT, { id: hidden.id }, WEB)).toEqual({ product: null });
    const { products } = await api.data<{ products: Page }>(PRODUCTS, { first: 100 }, WEB);
    expect(products.nodes.map((p) => p.id)).not.toContain(inactive.id);
    expect(products.nodes.map((p) => p.id)).not.toContain(hidden.id);

    const { createChannel } = await api.data<{ createChannel: { id: string } }>(
      'mutation { createChannel(input: { code: "b2b", name: "Trade", defaultCurrency: "EUR" }) { id } }',
      {},
      admin,
    );
    expect((await api.data<{ products: Page }>(PRODUCTS, {}, { 'x-channel-id': createChannel.id })).products.nodes).toEqual([]);
  });

  /** The catalog reads sent on the pool (reads outside transactions) while `work` runs. */
  async function poolStatements(work: () => Promise<void>): Promise<string[]> {
    const pool = api.platform.database.pool;
    const original = pool.query.bind(pool);
    const seen: string[] = [];
    pool.query = ((config: unknown, ...rest: unknown[]) => {
      const text = typeof config === 'string' ? config : (config as { text?: string }).text;
      if (text !== undefined) seen.push(text);
      return (original as (...args: unknown[]) => unknown)(config, ...rest);
    }) as typeof pool.query;
    try {
      await work();
    } finally {
      pool.query = original;
    }
    // The dispatcher's polls share the pool: only what reads the catalog counts.
    return seen.filter((text) => /\bFROM (products|brands|categories|product_categories|stock_levels)\b/.test(text));
  }

  it('reads a page with its brands, categories, stock and image URLs in one statement, however long the page', async () => {
    // Set as setProductImage would after an upload: the URL comes from the key in the product's row.
    await api.prisma.product.update({ where: { sku: 'TEE-BLK' }, data: { imageKey: 'products/tee-blk/front.png' } });
    const statements = async (first: number) =>
      poolStatements(async () => {
        const { products } = await api.data<{ products: Page }>(PRODUCTS, { first }, WEB);
        expect(products.nodes).toHaveLength(first);
        expect(products.nodes.slice(0, 2)).toMatchObject([
          {
            sku: 'TEE-BLK',
            brand: { slug: 'northwind' },
            categories: [{ slug: 't-shirts' }, { slug: 'apparel' }],
            imageUrl: '/uploads/products/tee-blk/front.png',
          },
          { sku: 'TEE-WHT', brand: { slug: 'northwind' }, categories: [{ slug: 't-shirts' }, { slug: 'apparel' }], imageUrl: null },
        ]);
        expect(products.nodes[0]?.available).toBeGreaterThan(0);
      });
    expect(await statements(2)).toHaveLength(1);
    expect(await statements(10)).toHaveLength(1);
    const page = await poolStatements(async () => {
      const { product } = await api.data<{ product: { categories: { slug: string; parent: { slug: string } | null }[] } }>(
        '{ product(slug: "hood-gry") { sku brand { slug } available categories { slug parent { slug } } } }',
        {},
        WEB,
      );
      expect(product.categories).toEqual([
        { slug: 'hoodies', parent: { slug: 'apparel' } },
        { slug: 'apparel', parent: null },
      ]);
    });
    expect(page).toHaveLength(1);
  });

  it('loads what a cart line shows of its product in one query per field, however many lines', async () => {
    const { products } = await api.data<{ products: Page }>(PRODUCTS, { first: 6 }, WEB);
    const guest = await api.guestSession();
    const cart = await guestCart(
      guest,
      products.nodes.map((node) => [node.id, 1]),
    );
    const LINES = `query ($id: ID!) { cart(id: $id) { lines { product { sku brand { slug } categories { slug parent { slug } } available } } } }`;
    const sql = await poolStatements(async () => {
      const { cart: seen } = await api.data<{
        cart: { lines: { product: { sku: string; brand: { slug: string } | null; available: number } }[] };
      }>(LINES, { id: cart.id }, { ...WEB, 'x-session-id': guest });
      expect(seen.lines.map((line) => line.product.sku)).toEqual(products.nodes.map((node) => node.sku));
      expect(seen.lines.map((line) => line.product.brand?.slug)).toEqual(products.nodes.map((node) => node.brand?.slug));
    });
    const touching = (table: string) => sql.filter((text) => new RegExp(`\\bFROM ${table}\\b`).test(text)).length;
    expect({
      products: touching('products'),
      brands: touching('brands'),
      categories: touching('product_categories'),
      stock: touching('stock_levels'),
    }).toEqual({
      products: 1,
      brands: 1,
      categories: 1,
      stock: 1,
    });
  });
});

describe('pagination', () => {
  it('returns every product exactly once across pages while new products are inserted', async () => {
    const before = (await api.data<{ products: Page }>(PRODUCTS, { first: 100 }, WEB)).products.nodes.map((p) => p.id);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 50; page += 1) {
      const { products }: { products: Page } = await api.data<{ products: Page }>(PRODUCTS, { first: 3, after }, WEB);
      seen.push(...products.nodes.map((p) => p.id));
      // Products arrive between page requests.
      if (page < 3) await newProduct();
      if (!products.pageInfo.hasNextPage) break;
      after = products.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, before.length)).toEqual(before);
    expect(seen).toHaveLength(before.length + 3);
  });

  it('refuses a cursor it did not issue and a page size out of range', async () => {
    expect((await api.error(PRODUCTS, { after: 'bm9wZQ' }, WEB)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    const orderCursor = Buffer.from('order:5').toString('base64url');
    expect((await api.error(PRODUCTS, { after: orderCursor }, WEB)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    for (const first of [0, -1, 101])
      expect((await api.error(PRODUCTS, { first }, WEB)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
  });
});

describe('cart, checkout and the order lifecycle', () => {
  it('a guest browses, fills a cart, checks out; staff approve payment, fulfil and complete', async () => {
    await api.data(
      'mutation ($value: JSON!) { setSetting(key: "checkout", value: $value) }',
      { value: { taxRate: '0.19', shippingFlatRate: '4.90' } },
      admin,
    );
    try {
      const tee = await newProduct({ price: '19.90' }, 5);
      const cap = await newProduct({ price: '12.50' }, 5);
      const guest = await api.guestSession();
      const session = { ...WEB, 'x-session-id': guest };
      let cart = await guestCart(guest, [
        [tee.id, 2],
        [cap.id, 1],
        [cap.id, 2],
      ]);
      expect(cart.lines).toEqual([
        { productId: tee.id, quantity: 2, unitPrice: '19.90', lineTotal: '39.80', product: { sku: tee.sku } },
        { productId: cap.id, quantity: 3, unitPrice: '12.50', lineTotal: '37.50', product: { sku: cap.sku } },
      ]);
      cart = (await api.data<{ setCartLineQuantity: Cart }>(SET_QUANTITY, { cartId: cart.id, productId: cap.id, quantity: 1 }, session))
        .setCartLineQuantity;
      // 39.80 + 12.50 = 52.30; + 4.90 shipping = 57.20; tax 19 % = 10.868 -> 10.87
      expect(cart).toMatchObject({ itemCount: 3, subtotal: '52.30', shipping: '4.90', tax: '10.87', total: '68.07' });
      expect((await api.data<{ cart: Cart }>(CART, { id: cart.id }, session)).cart.total).toBe('68.07');

      const { placeOrder: order } = await api.data<{ placeOrder: Order }>(
        PLACE_ORDER,
        { input: { cartId: cart.id, email: 'Guest@Example.com', billingAddress: ADDRESS } },
        session,
      );
      expect(order).toMatchObject({
        status: 'PENDING_PAYMENT',
        email: 'guest@example.com',
        subtotal: '52.30',
        shipping: '4.90',
        tax: '10.87',
        total: '68.07',
        discount: '0.00',
      });
      expect(order.number).toMatch(/^SO-\d{4}-\d{6}$/);
      expect(order.shippingAddress).toEqual({ city: 'Berlin', countryCode: 'DE' });
      expect((await productBySku(tee.sku)).available).toBe(3);
      expect((await api.error(CART, { id: cart.id }, session)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'cartId' });

      const move = async (mutation: string) =>
        (
          await api.data<Record<string, Order>>(`mutation ($id: ID!) { ${mutation}(id: $id) { ${ORDER_FIELDS} } }`, { id: order.id }, admin)
        )[mutation];
      expect(await move('markOrderPaid')).toMatchObject({ status: 'PLACED', paidAt: expect.any(String) });
      expect(await move('fulfilOrder')).toMatchObject({ status: 'FULFILLED', fulfilledAt: expect.any(String) });
      expect(await move('completeOrder')).toMatchObject({ status: 'COMPLETED', completedAt: expect.any(String) });
      expect((await productBySku(tee.sku)).available).toBe(3);

      const events = await api.prisma.outboxEvent.findMany({
        where: { payload: { path: ['order_id'], equals: order.id } },
        orderBy: { id: 'asc' },
      });
      expect(events.map((event) => event.name)).toEqual([
        'shop.inventory.stock_changed.v1',
        'shop.inventory.stock_changed.v1',
        'shop.orders.placed.v1',
        'order.status_changed',
        'shop.orders.status_changed.v1',
        'order.status_changed',
        'shop.orders.status_changed.v1',
        'order.status_changed',
        'shop.orders.status_changed.v1',
        'order.status_changed',
        'shop.orders.status_changed.v1',
        'order.completed',
      ]);
      const moves = events.filter((event) => event.name === 'order.status_changed').map((event) => (event.payload as { to: string }).to);
      expect(moves).toEqual(['PENDING_PAYMENT', 'PLACED', 'FULFILLED', 'COMPLETED']);
      const { orders } = await api.data<{ orders: { nodes: Order[] } }>(
        '{ orders(first: 5, status: COMPLETED) { nodes { id status } } }',
        {},
        admin,
      );
      expect(orders.nodes).toContainEqual({ id: order.id, status: 'COMPLETED' });
    } finally {
      await api.data('mutation { setSetting(key: "checkout", value: {}) }', {}, admin);
    }
  });

  it('answers a retried placeOrder with the order the first placed, when it carries the same idempotencyKey', async () => {
    const product = await newProduct({}, 5);
    const guest = await api.guestSession();
    const cart = await guestCart(guest, [[product.id, 1]]);
    const headers = { ...WEB, 'x-session-id': guest };
    const input = {
      cartId: cart.id,
      email: 'guest@example.com',
      billingAddress: ADDRESS,
      idempotencyKey: '6f9619ff-8b86-d011-b42d-00c04fc964ff',
    };
    const first = await api.data<{ placeOrder: Order }>(PLACE_ORDER, { input }, headers);
    const retried = await api.data<{ placeOrder: Order }>(PLACE_ORDER, { input }, headers);
    expect(retried).toEqual(first);
    expect((await productBySku(product.sku)).available).toBe(4);
  });

  it('refuses an illegal transition as BAD_USER_INPUT naming both states, and cancels with a reason', async () => {
    const product = await newProduct({}, 5);
    const guest = await api.guestSession();
    const cart = await guestCart(guest, [[product.id, 2]]);
    const { placeOrder: order } = await api.data<{ placeOrder: Order }>(
      PLACE_ORDER,
      {
        input: { cartId: cart.id, email: 'guest@example.com', billingAddress: ADDRESS, shippingAddress: { ...ADDRESS, countryCode: 'FR' } },
      },
      { ...WEB, 'x-session-id': guest },
    );
    const illegal = await api.error('mutation ($id: ID!) { completeOrder(id: $id) { status } }', { id: order.id }, admin);
    expect(illegal).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(illegal.message).toBe(
      `order ${order.number} cannot go from PENDING_PAYMENT to COMPLETED: from PENDING_PAYMENT it can go to PLACED, CANCELLED`,
    );

    const blank = await api.error('mutation ($id: ID!) { cancelOrder(id: $id, reason: " ") { status } }', { id: order.id }, admin);
    expect(blank.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'reason' });
    const { cancelOrder } = await api.data<{ cancelOrder: Order }>(
      'mutation ($id: ID!) { cancelOrder(id: $id, reason: "customer called") { status cancelReason } }',
      { id: order.id },
      admin,
    );
    expect(cancelOrder).toEqual({ status: 'CANCELLED', cancelReason: 'customer called' });
    expect((await productBySku(product.sku)).available).toBe(5);
    const again = await api.error('mutation ($id: ID!) { markOrderPaid(id: $id) { status } }', { id: order.id }, admin);
    expect(again.message).toMatch(/cannot go from CANCELLED to PLACED/);
  });

  it('a signed-in customer checks out and pages through their orders, newest first', async () => {
    const { registerCustomer } = await api.data<{ registerCustomer: { accessToken: string } }>(
      'mutation { registerCustomer(input: { email: "buyer@example.com", password: "buyer-password-1" }) { accessToken } }',
      {},
      WEB,
    );
    const headers = bearer(registerCustomer.accessToken);
    const product = await newProduct({}, 20);
    const numbers: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { createCart } = await api.data<{ createCart: Cart }>(CREATE_CART, {}, headers);
      await api.data(ADD_LINE, { cartId: createCart.id, productId: product.id, quantity: 1 }, headers);
      const { placeOrder } = await api.data<{ placeOrder: Order }>(
        PLACE_ORDER,
        { input: { cartId: createCart.id, email: 'buyer@example.com', billingAddress: ADDRESS } },
        headers,
      );
      numbers.unshift(placeOrder.number);
    }
    const MY_ORDERS =
      'query ($after: String) { myOrders(first: 2, after: $after) { nodes { number } pageInfo { endCursor hasNextPage } } }';
    const first = await api.data<{ myOrders: { nodes: { number: string }[]; pageInfo: { endCursor: string; hasNextPage: boolean } } }>(
      MY_ORDERS,
      {},
      headers,
    );
    expect(first.myOrders.pageInfo.hasNextPage).toBe(true);
    const second = await api.data<{ myOrders: { nodes: { number: string }[]; pageInfo: { hasNextPage: boolean } } }>(
      MY_ORDERS,
      { after: first.myOrders.pageInfo.endCursor },
      headers,
    );
    expect([...first.myOrders.nodes, ...second.myOrders.nodes].map((o) => o.number)).toEqual(numbers);
    expect(second.myOrders.pageInfo.hasNextPage).toBe(false);
    expect((await api.error(MY_ORDERS)).extensions.code).toBe('UNAUTHENTICATED');
  });

  it("a business customer's order waits for staff approval before payment", async () => {
    const { registerCustomer } = await api.data<{ registerCustomer: { accessToken: string } }>(
      'mutation { registerCustomer(input: { email: "buyer@trade.example", password: "trade-password-1", isBusiness: true }) { accessToken } }',
      {},
      WEB,
    );
    const headers = bearer(registerCustomer.accessToken);
    const { me } = await api.data<{ me: { id: string; approvalStatus: string } }>('{ me { id approvalStatus } }', {}, headers);
    expect(me.approvalStatus).toBe('PENDING');
    const { approveBusinessCustomer } = await api.data<{ approveBusinessCustomer: { approvalStatus: string } }>(
      'mutation ($id: ID!) { approveBusinessCustomer(id: $id) { approvalStatus } }',
      { id: me.id },
      admin,
    );
    expect(approveBusinessCustomer.approvalStatus).toBe('APPROVED');

    const product = await newProduct({}, 5);
    const { createCart } = await api.data<{ createCart: Cart }>(CREATE_CART, {}, headers);
    await api.data(ADD_LINE, { cartId: createCart.id, productId: product.id, quantity: 2 }, headers);
    const { placeOrder } = await api.data<{ placeOrder: Order }>(
      PLACE_ORDER,
      { input: { cartId: createCart.id, email: 'buyer@trade.example', billingAddress: ADDRESS } },
      headers,
    );
    expect(placeOrder.status).toBe('AWAITING_APPROVAL');
    const early = await api.error('mutation ($id: ID!) { markOrderPaid(id: $id) { status } }', { id: placeOrder.id }, admin);
    expect(early.message).toMatch(/cannot go from AWAITING_APPROVAL to PLACED/);
    const { approveOrder } = await api.data<{ approveOrder: Order }>(
      'mutation ($id: ID!) { approveOrder(id: $id) { status } }',
      { id: placeOrder.id },
      admin,
    );
    expect(approveOrder.status).toBe('PENDING_PAYMENT');
    expect(
      (await api.data<{ markOrderPaid: Order }>('mutation ($id: ID!) { markOrderPaid(id: $id) { status } }', { id: placeOrder.id }, admin))
        .markOrderPaid.status,
    ).toBe('PLACED');
  });

  it("hides other shoppers' carts and needs a session or a sign-in", async () => {
    const product = await newProduct();
    const cart = await guestCart(await api.guestSession(), [[product.id, 1]]);
    const intruder = await api.error(CART, { id: cart.id }, { ...WEB, 'x-session-id': await api.guestSession() });
    expect(intruder).toMatchObject({ message: `cart ${cart.id} does not exist`, extensions: { code: 'NOT_FOUND', field: 'cartId' } });
    const anonymous = await api.error(CREATE_CART, {}, WEB);
    expect(anonymous.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'sessionId' });
  });

  it('refuses an order for more than is in stock, and leaves the cart open', async () => {
    const product = await newProduct({}, 2);
    const guest = await api.guestSession();
    const cart = await guestCart(guest, [[product.id, 3]]);
    const error = await api.error(
      PLACE_ORDER,
      { input: { cartId: cart.id, email: 'greedy@example.com', billingAddress: ADDRESS } },
      { ...WEB, 'x-session-id': guest },
    );
    expect(error).toMatchObject({
      message: `not enough stock for ${product.sku}: 3 requested, 2 available`,
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect((await api.data<{ cart: Cart }>(CART, { id: cart.id }, { ...WEB, 'x-session-id': guest })).cart.itemCount).toBe(3);
  });
});

describe('work per request', () => {
  /** The SQL every database client of this process sends while `work` runs (transactions included). */
  async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
    const original = pg.Client.prototype.query;
    const seen: string[] = [];
    pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
      const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
      if (text !== undefined) seen.push(text);
      return (original as (...args: unknown[]) => unknown).call(this, config, ...rest);
    } as typeof original;
    try {
      await work();
    } finally {
      pg.Client.prototype.query = original;
    }
    return seen;
  }

  it('finds a channel created after a request named it, and then reads channels no more', async () => {
    const late = { 'x-channel-id': 'late-web', 'x-session-id': await api.guestSession() };
    expect(await api.error(CREATE_CART, {}, late)).toMatchObject({
      message: 'channel late-web does not exist',
      extensions: { code: 'NOT_FOUND', field: 'X-Channel-ID' },
    });
    const { createChannel } = await api.data<{ createChannel: { id: string } }>(
      'mutation { createChannel(input: { code: "late-web", name: "Late", defaultCurrency: "USD" }) { id } }',
      {},
      admin,
    );
    expect((await api.data<{ createCart: Cart }>(CREATE_CART, {}, late)).createCart).toMatchObject({
      currency: 'USD',
      lines: [],
      total: '0.00',
    });
    const again = await statementsOf(() => api.data(CREATE_CART, {}, { ...late, 'x-channel-id': createChannel.id }));
    const again2 = await statementsOf(() => api.data(CREATE_CART, {}, late));
    expect([...again, ...again2].filter((sql) => /\bchannels\b/.test(sql))).toEqual([]);
  });

  it('adds a line reading the cart and the checkout settings once', async () => {
    const { products } = await api.data<{ products: Page }>(PRODUCTS, { first: 1 }, WEB);
    const productId = products.nodes[0]?.id ?? '';
    const guest = await api.guestSession();
    const cart = await guestCart(guest, [[productId, 1]]);
    const sql = await statementsOf(() =>
      api.data(ADD_LINE, { cartId: cart.id, productId, quantity: 1 }, { ...WEB, 'x-session-id': guest }),
    );
    expect(sql.filter((text) => /FROM "public"\."settings"/.test(text))).toHaveLength(1);
    expect(sql.filter((text) => /\bFROM carts\b/.test(text) || /FROM "public"\."carts"/.test(text))).toHaveLength(1);
    expect(sql.filter((text) => /\bchannels\b/.test(text))).toEqual([]);
  });
});

describe('input validation', () => {
  let session: Record<string, string>;
  let cartId: string;
  let product: Product;

  beforeAll(async () => {
    product = await newProduct();
    const guest = await api.guestSession();
    session = { ...WEB, 'x-session-id': guest };
    cartId = (await guestCart(guest, [])).id;
  });

  it('refuses quantities out of range, naming quantity', async () => {
    for (const quantity of [0, -1, 1000]) {
      const error = await api.error(ADD_LINE, { cartId, productId: product.id, quantity }, session);
      expect(error).toMatchObject({
        message: 'quantity must be a whole number from 1 to 999',
        extensions: { code: 'BAD_USER_INPUT', field: 'quantity' },
      });
    }
    await api.data(ADD_LINE, { cartId, productId: product.id, quantity: 1 }, session);
    expect((await api.error(SET_QUANTITY, { cartId, productId: product.id, quantity: -3 }, session)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'quantity',
    });
    const overflow = await api.error(ADD_LINE, { cartId, productId: product.id, quantity: 2 ** 40 }, session);
    expect(overflow.status).toBeGreaterThanOrEqual(400);
    expect(overflow.status).toBeLessThan(500);
    expect(overflow.message).toMatch(/quantity/);
  });

  it('names an id that is not a number, and answers unknown ids as NOT_FOUND', async () => {
    expect(await api.error(ADD_LINE, { cartId, productId: 'abc', quantity: 1 }, session)).toMatchObject({
      message: 'productId must be a numeric id such as "42"',
      extensions: { code: 'BAD_USER_INPUT', field: 'productId' },
    });
    expect(
      (await api.error(ADD_LINE, { cartId: '99999999999999999999', productId: product.id, quantity: 1 }, session)).extensions,
    ).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'cartId',
    });
    expect((await api.error(ADD_LINE, { cartId, productId: '987654321', quantity: 1 }, session)).extensions.code).toBe('NOT_FOUND');
    expect((await api.error(CART, { id: '987654321' }, session)).extensions).toMatchObject({ code: 'NOT_FOUND', field: 'cartId' });
    expect((await api.error(PRODUCTS, { categoryId: '987654321' }, WEB)).extensions).toMatchObject({
      code: 'NOT_FOUND',
      field: 'categoryId',
    });
    expect((await api.error(PRODUCTS, { brandId: '-4' }, WEB)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'brandId' });
    expect((await api.error('mutation { approveOrder(id: "987654321") { status } }', {}, admin)).extensions.code).toBe('NOT_FOUND');
    expect((await api.error('{ order(id: "987654321") { status } }', {}, admin)).extensions).toMatchObject({
      code: 'NOT_FOUND',
      field: 'id',
    });
  });

  it('refuses oversized strings, naming the field', async () => {
    expect((await api.error(PRODUCTS, { search: 'x'.repeat(201) }, WEB)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'search',
    });
    expect(
      (
        await api.error(
          CREATE_PRODUCT,
          { input: { sku: 'LONG', name: 'n'.repeat(301), slug: 'long', price: '1.00', currency: 'EUR' } },
          admin,
        )
      ).extensions,
    ).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'name',
    });
    expect(
      (
        await api.error(
          CREATE_PRODUCT,
          { input: { sku: 'LONG', name: 'Long', slug: 'long', price: '1.00', currency: 'EUR', description: 'd'.repeat(10_001) } },
          admin,
        )
      ).extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'description' });
    const address = await api.error(
      PLACE_ORDER,
      { input: { cartId, email: 'v@example.com', billingAddress: { ...ADDRESS, city: 'c'.repeat(101) } } },
      session,
    );
    expect(address.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'billingAddress.city' });
    const email = await api.error(
      PLACE_ORDER,
      { input: { cartId, email: `${'e'.repeat(320)}@example.com`, billingAddress: ADDRESS } },
      session,
    );
    expect(email.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'email' });
    const lead = await api.error(
      'mutation ($input: CaptureLeadInput!) { captureLead(input: $input) { id } }',
      { input: { email: 'l@example.com', source: 's'.repeat(101) } },
      WEB,
    );
    expect(lead.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'source' });
  });

  it('checks the references and uniqueness of a new product', async () => {
    const base = { sku: 'REF-1', name: 'Ref', slug: 'ref-1', price: '1.00', currency: 'EUR' };
    expect((await api.error(CREATE_PRODUCT, { input: { ...base, brandId: '987654321' } }, admin)).extensions).toMatchObject({
      code: 'NOT_FOUND',
      field: 'brandId',
    });
    const { categories } = await api.data<{ categories: { id: string }[] }>('{ categories { id } }');
    const known = categories[0]?.id;
    expect((await api.error(CREATE_PRODUCT, { input: { ...base, categoryIds: [known, '987654321'] } }, admin)).extensions).toMatchObject({
      code: 'NOT_FOUND',
      field: 'categoryIds[1]',
    });
    expect((await api.error(CREATE_PRODUCT, { input: { ...base, categoryIds: [known, known] } }, admin)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'categoryIds',
    });
    expect((await api.error(CREATE_PRODUCT, { input: { ...base, price: '-1' } }, admin)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'price',
    });
    expect((await api.error(CREATE_PRODUCT, { input: { ...base, sku: 'TEE-BLK' } }, admin)).extensions).toMatchObject({
      code: 'CONFLICT',
      field: 'sku',
    });
  });

  it('checks stock changes', async () => {
    expect((await api.error(SET_STOCK, { input: { productId: product.id, locationId, onHand: -1 } }, admin)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'onHand',
    });
    expect(
      (await api.error(SET_STOCK, { input: { productId: product.id, locationId: '987654321', onHand: 1 } }, admin)).extensions,
    ).toMatchObject({
      code: 'NOT_FOUND',
      field: 'locationId',
    });
    expect((await api.error(SET_STOCK, { input: { productId: '987654321', locationId, onHand: 1 } }, admin)).extensions).toMatchObject({
      code: 'NOT_FOUND',
      field: 'productId',
    });
  });

  it('checks the checkout and workflow settings before storing them', async () => {
    const SET = 'mutation ($key: String!, $value: JSON!) { setSetting(key: $key, value: $value) }';
    expect((await api.error(SET, { key: 'checkout', value: { taxRate: 19 } }, admin)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'value.taxRate',
    });
    expect((await api.error(SET, { key: 'checkout', value: { fraud: { countryMismatch: 'yes' } } }, admin)).extensions).toMatchObject({
      field: 'value.fraud.countryMismatch',
    });
    expect((await api.error(SET, { key: 'checkout', value: { taxrate: '0.1' } }, admin)).extensions).toMatchObject({
      field: 'value.taxrate',
    });
    expect((await api.error(SET, { key: 'Bad Key', value: 1 }, admin)).extensions).toMatchObject({ field: 'key' });
    expect((await api.error(SET, { key: 'workflows', value: { fulfilmentWindowHours: '72' } }, admin)).extensions).toMatchObject({
      field: 'value.fulfilmentWindowHours',
    });
    expect((await api.error(SET, { key: 'workflows', value: { customerApprovalExpiryHours: 0 } }, admin)).extensions).toMatchObject({
      field: 'value.customerApprovalExpiryHours',
    });
    expect((await api.error(SET, { key: 'workflows', value: { reminderHours: 1 } }, admin)).extensions).toMatchObject({
      field: 'value.reminderHours',
    });
    expect(await api.data(SET, { key: 'workflows', value: { fulfilmentWindowHours: 0.5 } }, admin)).toEqual({
      setSetting: { fulfilmentWindowHours: 0.5 },
    });
    // Past 6 days a cart tender's authorization would lapse (7 days) before its void.
    const idle = await api.error(SET, { key: 'workflows', value: { cartTenderIdleMinutes: 9000 } }, admin);
    expect(idle.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'value.cartTenderIdleMinutes' });
    expect(idle.message).toContain('to 8640 (6 days');
    expect(await api.data(SET, { key: 'workflows', value: { cartTenderIdleMinutes: 15 } }, admin)).toEqual({
      setSetting: { cartTenderIdleMinutes: 15 },
    });
    await api.data(SET, { key: 'workflows', value: {} }, admin);
    expect(await api.data(SET, { key: 'storefront.banner', value: { text: 'Hello' } }, admin)).toEqual({ setSetting: { text: 'Hello' } });
    expect(await api.data('{ setting(key: "storefront.banner") }', {}, admin)).toEqual({ setting: { text: 'Hello' } });
    expect(await api.data('{ setting(key: "unset") }', {}, admin)).toEqual({ setting: null });
  });
});

describe('leads', () => {
  it('captures a lead in the channel without signing in', async () => {
    const { captureLead } = await api.data<{ captureLead: { id: string; email: string; source: string } }>(
      'mutation { captureLead(input: { email: "Prospect@Example.com", name: "Pat", source: "newsletter" }) { id email source } }',
      {},
      WEB,
    );
    expect(captureLead).toMatchObject({ email: 'prospect@example.com', source: 'newsletter' });
    const event = await api.prisma.outboxEvent.findFirst({
      where: { name: 'shop.leads.created.v1', payload: { path: ['lead_id'], equals: captureLead.id } },
    });
    expect(event).not.toBeNull();
  });
});
