import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCartLine, createCart, setCartLineQuantity, viewCart } from '../../src/carts/carts.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { approveOrder, changeOrderAddresses, completeOrder, fulfilOrder, markOrderPaid } from '../../src/orders/order-transitions.ts';
import { expireStaleReservations } from '../../src/flows/order-expiry.ts';
import { setStockOnHand } from '../../src/inventory/stock.ts';
import { ADDRESS, refusal, openCommerce, seedCatalog, type Catalog, type Commerce } from '../support/commerce.ts';
import { cancelOrder } from '../../src/flows/order-cancellation.ts';

let commerce: Commerce;
let catalog: Catalog;

beforeAll(async () => {
  commerce = await openCommerce('checkout');
  catalog = await seedCatalog(commerce, 'co');
});

afterAll(async () => {
  await commerce?.close();
});

const stock = async (productId: bigint) =>
  await commerce.platform.database.prisma.stockLevel.findUniqueOrThrow({
    where: { productId_locationId: { productId, locationId: catalog.locationId } },
  });

async function cartWith(sessionId: string, lines: [bigint, number][]): Promise<bigint> {
  return commerce.transaction(async (tx) => {
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper: { sessionId } });
    for (const [productId, quantity] of lines)
      await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper: { sessionId }, productId, quantity });
    return cart.id;
  });
}

const checkout = (cartId: bigint, sessionId: string, overrides: Partial<Parameters<typeof placeOrder>[2]> = {}) =>
  commerce.transaction((tx) =>
    placeOrder(tx, commerce.deps, {
      cartId,
      shopper: { sessionId },
      email: 'Ada@Example.com',
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
      ...overrides,
    }),
  );

const SWEEP_RUN = { workflow: 'ExpireStaleReservationsWorkflow', workflowId: 'test-sweep', runId: 'run-1' };

describe('carts', () => {
  it('adds a line with both cart events, and adds to the same line when the product comes again', async () => {
    const tee = await catalog.product('cart-tee', '19.90', 10);
    const before = await commerce.lastEventId();
    const cartId = await cartWith('s-cart', [
      [tee, 1],
      [tee, 2],
    ]);
    const line = await commerce.platform.database.prisma.cartLine.findFirstOrThrow({ where: { cartId } });
    expect(line.quantity).toBe(3);
    const events = await commerce.events(before);
    expect(events.map((event) => event.name)).toEqual([
      'cart.item_added',
      'shop.cart.line_added.v1',
      'cart.item_added',
      'shop.cart.line_added.v1',
    ]);
    expect(events[0]?.payload).toMatchObject({
      cart_id: cartId.toString(),
      session_id: 's-cart',
      product_id: tee.toString(),
      category_ids: catalog.categoryIds.map(String),
      brand_id: catalog.brandId.toString(),
      quantity: 1,
    });
    expect(events[3]?.payload).toMatchObject({ sku: 'co-cart-tee', unit_price: '19.90', currency: 'EUR', quantity: 2 });
  });

  it.each([
    [0, 'zero'],
    [-1, 'negative'],
    [1.5, 'fraction'],
    [1000, 'too-many'],
  ])('refuses quantity %s as BAD_USER_INPUT', async (quantity, name) => {
    const tee = await catalog.product(`quantity-${name}`, '5.00', 5);
    const error = await refusal(cartWith('s-quantity', [[tee, quantity]]));
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', message: 'quantity must be a whole number from 1 to 999' });
  });

  it("refuses an unknown product and hides other shoppers' carts", async () => {
    expect(await refusal(cartWith('s-unknown', [[987654321n, 1]]))).toMatchObject({ code: 'NOT_FOUND' });
    const tee = await catalog.product('private-tee', '5.00', 5);
    const cartId = await cartWith('s-owner', [[tee, 1]]);
    const error = await refusal(
      commerce.transaction((tx) =>
        setCartLineQuantity(tx, commerce.deps, { cartId, shopper: { sessionId: 's-intruder' }, productId: tee, quantity: 5 }),
      ),
    );
    expect(error).toMatchObject({ code: 'NOT_FOUND', message: `cart ${cartId} does not exist` });
  });
});

describe("cart lines and the cart's life", () => {
  const START = new Date('2026-11-23T10:00:00.000Z');
  const DAY = 24 * 60 * 60 * 1000;
  const add = (cartId: bigint, sessionId: string, productId: bigint, quantity: number) =>
    commerce.transaction((tx) => addCartLine(tx, commerce.deps, { cartId, shopper: { sessionId }, productId, quantity }));

  it('grows a line up to 999 units and refuses to pass it, leaving the line and the outbox as they were', async () => {
    const tee = await catalog.product('max-tee', '1.00', 5);
    const cartId = await cartWith('s-max', [[tee, 998]]);
    const before = await commerce.lastEventId();
    expect(await refusal(add(cartId, 's-max', tee, 2))).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'a line may hold at most 999 units',
    });
    expect(await commerce.events(before)).toEqual([]);
    const view = await add(cartId, 's-max', tee, 1);
    expect(view).toMatchObject({
      lines: [{ productId: tee, quantity: 999, unitPrice: '1.00', lineTotal: '999.00' }],
      subtotal: '999.00',
      total: '999.00',
    });
  });

  it('moves the expiry forward with every add, and refuses an expired or checked-out cart', async () => {
    const tee = await catalog.product('life-cart-tee', '3.00', 5);
    const cartId = await cartWith('s-cart-life', [[tee, 1]]);
    const expiry = async () => (await commerce.platform.database.prisma.cart.findUniqueOrThrow({ where: { id: cartId } })).expiresAt;
    expect(await expiry()).toEqual(new Date(START.getTime() + 14 * DAY));
    try {
      commerce.setNow(new Date(START.getTime() + 10 * DAY));
      await add(cartId, 's-cart-life', tee, 1);
      expect(await expiry()).toEqual(new Date(START.getTime() + 24 * DAY));
      commerce.setNow(new Date(START.getTime() + 24 * DAY));
      expect(await refusal(add(cartId, 's-cart-life', tee, 1))).toMatchObject({
        code: 'BAD_USER_INPUT',
        message: `cart ${cartId} has expired; start a new one`,
      });
    } finally {
      commerce.setNow(START);
    }
    await checkout(cartId, 's-cart-life');
    expect(await refusal(add(cartId, 's-cart-life', tee, 1))).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: `cart ${cartId} was already checked out`,
    });
  });

  it('shows what checkout will charge, with the tax and shipping settings, and charges exactly that', async () => {
    const tee = await catalog.product('totals-tee', '10.00', 5);
    const prisma = commerce.platform.database.prisma;
    await prisma.setting.upsert({
      where: { key: 'checkout' },
      create: { key: 'checkout', value: { taxRate: '0.19', shippingFlatRate: '4.90' } },
      update: { value: { taxRate: '0.19', shippingFlatRate: '4.90' } },
    });
    try {
      const cartId = await cartWith('s-totals', []);
      const view = await add(cartId, 's-totals', tee, 2);
      expect(view).toMatchObject({ subtotal: '20.00', shipping: '4.90', tax: '4.73', total: '29.63' });
      const order = await checkout(cartId, 's-totals');
      expect([order.subtotal, order.shipping, order.tax, order.total].map((amount) => amount.toFixed(2))).toEqual([
        '20.00',
        '4.90',
        '4.73',
        '29.63',
      ]);
    } finally {
      await prisma.setting.delete({ where: { key: 'checkout' } });
    }
  });
});

describe('checkout of a changed cart', () => {
  it('refuses a product withdrawn from sale after it went into the cart, naming it, and holds nothing', async () => {
    const kept = await catalog.product('kept-tee', '10.00', 5);
    const withdrawn = await catalog.product('withdrawn-tee', '10.00', 5);
    const cartId = await cartWith('s-withdrawn', [
      [kept, 1],
      [withdrawn, 1],
    ]);
    const prisma = commerce.platform.database.prisma;
    await prisma.product.update({ where: { id: withdrawn }, data: { active: false } });
    expect(await refusal(checkout(cartId, 's-withdrawn'))).toMatchObject({
      code: 'NOT_FOUND',
      message: `product ${withdrawn} does not exist or is not sold in this channel`,
    });
    expect(await stock(kept)).toMatchObject({ reserved: 0 });
    await prisma.product.update({ where: { id: withdrawn }, data: { active: true } });
    await prisma.productChannel.delete({ where: { productId_channelId: { productId: withdrawn, channelId: catalog.channelId } } });
    expect(await refusal(checkout(cartId, 's-withdrawn'))).toMatchObject({
      code: 'NOT_FOUND',
      details: { productId: withdrawn.toString() },
    });
  });

  it('refuses a product repriced in another currency since it went into the cart, naming it, and holds nothing', async () => {
    const kept = await catalog.product('eur-tee', '10.00', 5);
    const repriced = await catalog.product('usd-tee', '10.00', 5);
    const cartId = await cartWith('s-currency', [
      [kept, 1],
      [repriced, 1],
    ]);
    const prisma = commerce.platform.database.prisma;
    const { currency } = await prisma.product.findUniqueOrThrow({ where: { id: repriced } });
    const other = currency === 'USD' ? 'GBP' : 'USD';
    await prisma.product.update({ where: { id: repriced }, data: { currency: other } });
    expect(await refusal(checkout(cartId, 's-currency'))).toMatchObject({
      code: 'CONFLICT',
      message: `product co-usd-tee is now priced in ${other}, the cart in ${currency}: remove it`,
      details: { productId: repriced.toString() },
    });
    expect(await stock(kept)).toMatchObject({ reserved: 0 });
  });

  it("shows each line at today's price, as checkout will charge it, after the product was repriced", async () => {
    const tee = await catalog.product('repriced-view-tee', '10.00', 5);
    const cartId = await cartWith('s-repriced-view', [[tee, 2]]);
    await commerce.platform.database.prisma.product.update({ where: { id: tee }, data: { price: '12.50' } });
    const view = await commerce.transaction((tx) => viewCart(tx, commerce.deps, cartId, { sessionId: 's-repriced-view' }));
    expect(view.lines).toEqual([{ productId: tee, quantity: 2, unitPrice: '12.50', lineTotal: '25.00' }]);
    const order = await checkout(cartId, 's-repriced-view');
    expect(order.subtotal.toFixed(2)).toBe(view.subtotal);
    expect(order.total.toFixed(2)).toBe(view.total);
  });

  it("snapshots each line at today's price, in cart order", async () => {
    const first = await catalog.product('snap-b', '7.50', 5);
    const second = await catalog.product('snap-a', '2.25', 5);
    const cartId = await cartWith('s-snapshot', [
      [first, 2],
      [second, 3],
    ]);
    await commerce.platform.database.prisma.product.update({ where: { id: first }, data: { price: '8.00' } });
    const order = await checkout(cartId, 's-snapshot');
    expect(
      order.lines.map((line) => [
        line.productId,
        line.sku,
        line.quantity,
        line.unitPrice.toFixed(2),
        line.lineTotal.toFixed(2),
        line.categoryIds,
      ]),
    ).toEqual([
      [first, 'co-snap-b', 2, '8.00', '16.00', [...catalog.categoryIds]],
      [second, 'co-snap-a', 3, '2.25', '6.75', [...catalog.categoryIds]],
    ]);
    expect(order.subtotal.toFixed(2)).toBe('22.75');
    const stored = await commerce.platform.database.prisma.order.findUniqueOrThrow({
      where: { id: order.id },
      include: { lines: { orderBy: { id: 'asc' } } },
    });
    expect(stored).toEqual(order);
  });
});

describe('placing an order again with its idempotency key', () => {
  it('answers the order the first request placed, and places, holds and emits nothing more', async () => {
    const tee = await catalog.product('retry-tee', '10.00', 5);
    const cartId = await cartWith('s-retry', [[tee, 2]]);
    const first = await checkout(cartId, 's-retry', { idempotencyKey: 'retry-0f8c2d1e' });
    const afterFirst = await commerce.lastEventId();
    const again = await checkout(cartId, 's-retry', { idempotencyKey: 'retry-0f8c2d1e' });
    expect(again).toEqual(first);
    expect(await commerce.events(afterFirst)).toEqual([]);
    expect(await stock(tee)).toMatchObject({ reserved: 2 });
    expect(await commerce.platform.database.prisma.order.count({ where: { cartId } })).toBe(1);
    // Without the key a repeat is what it always was: the cart was checked out.
    expect(await refusal(checkout(cartId, 's-retry'))).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: `cart ${cartId} was already checked out`,
    });
  });

  it('places one order for concurrent requests with the same key, and answers it to both', async () => {
    const tee = await catalog.product('twice-tee', '10.00', 5);
    const cartId = await cartWith('s-twice', [[tee, 1]]);
    const [a, b] = await Promise.all([
      checkout(cartId, 's-twice', { idempotencyKey: 'twice-7d1e' }),
      checkout(cartId, 's-twice', { idempotencyKey: 'twice-7d1e' }),
    ]);
    expect(a.id).toBe(b.id);
    expect(await stock(tee)).toMatchObject({ reserved: 1 });
  });

  it("refuses a key that placed another cart's or another shopper's order, and a malformed key", async () => {
    const tee = await catalog.product('reused-tee', '10.00', 5);
    const cartId = await cartWith('s-reused', [[tee, 1]]);
    await checkout(cartId, 's-reused', { idempotencyKey: 'reused-5a9b' });
    const otherCart = await cartWith('s-reused', [[tee, 1]]);
    expect(await refusal(checkout(otherCart, 's-reused', { idempotencyKey: 'reused-5a9b' }))).toMatchObject({
      code: 'CONFLICT',
      details: { field: 'idempotencyKey' },
    });
    expect(await refusal(checkout(cartId, 's-someone-else', { idempotencyKey: 'reused-5a9b' }))).toMatchObject({ code: 'CONFLICT' });
    expect(await refusal(checkout(otherCart, 's-reused', { idempotencyKey: 'short' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'idempotencyKey' },
    });
  });
});

describe('stock holds', () => {
  it('holds each line at the location with the most sellable units', async () => {
    const tee = await catalog.product('where-tee', '10.00', 3);
    const second = await commerce.platform.database.prisma.stockLocation.create({ data: { name: 'co second warehouse' } });
    await commerce.transaction((tx) => setStockOnHand(tx, commerce.deps, { productId: tee, locationId: second.id, onHand: 5 }));
    const first = await checkout(await cartWith('s-where-1', [[tee, 4]]), 's-where-1');
    const second2 = await checkout(await cartWith('s-where-2', [[tee, 2]]), 's-where-2');
    const prisma = commerce.platform.database.prisma;
    expect(
      await prisma.inventoryReservation.findMany({ where: { orderId: { in: [first.id, second2.id] } }, orderBy: { id: 'asc' } }),
    ).toMatchObject([
      { orderId: first.id, locationId: second.id, quantity: 4, state: 'HELD' },
      { orderId: second2.id, locationId: catalog.locationId, quantity: 2, state: 'HELD' },
    ]);
    expect(await stock(tee)).toMatchObject({ onHand: 3, reserved: 2 });
    const refused = await refusal(checkout(await cartWith('s-where-3', [[tee, 2]]), 's-where-3'));
    expect(refused.message).toBe('not enough stock for co-where-tee: 2 requested, 2 available');
  });
});

describe('checkout and the order lifecycle', () => {
  it('places an order that holds stock, then payment commits it and completion emits order.completed', async () => {
    const tee = await catalog.product('life-tee', '19.90', 5);
    const cartId = await cartWith('s-life', [[tee, 2]]);
    const before = await commerce.lastEventId();
    const order = await checkout(cartId, 's-life');
    expect(order).toMatchObject({ status: 'PENDING_PAYMENT', email: 'ada@example.com', currency: 'EUR' });
    expect(order.number).toMatch(/^SO-2026-\d{6}$/);
    expect(order.total.toFixed(2)).toBe('39.80');
    expect(order.lines[0]).toMatchObject({ productId: tee, quantity: 2, categoryId: catalog.categoryIds[0], brandId: catalog.brandId });
    expect(await stock(tee)).toMatchObject({ onHand: 5, reserved: 2 });
    const placed = await commerce.events(before);
    expect(placed.map((event) => event.name)).toEqual([
      'shop.inventory.stock_changed.v1',
      'shop.orders.placed.v1',
      'order.status_changed',
      'shop.orders.status_changed.v1',
    ]);
    expect(placed[3]?.payload).toMatchObject({
      order_id: order.id.toString(),
      order_number: order.number,
      from: null,
      to: 'PENDING_PAYMENT',
    });
    expect(placed[0]?.payload).toMatchObject({
      previous_quantity: 5,
      new_quantity: 3,
      delta: -2,
      reason: 'reservation',
      order_id: order.id.toString(),
    });
    expect(placed[2]?.payload).toMatchObject({ order_id: order.id.toString(), from: null, to: 'PENDING_PAYMENT', reason: null });
    expect(placed[1]?.payload).toMatchObject({ order_number: order.number, status: 'PENDING_PAYMENT', totals: { total: '39.80' } });

    await commerce.transaction((tx) => markOrderPaid(tx, commerce.deps, order.id));
    expect(await stock(tee)).toMatchObject({ onHand: 3, reserved: 0 });
    await commerce.transaction((tx) => fulfilOrder(tx, commerce.deps, order.id));
    const beforeCompletion = await commerce.lastEventId();
    const completed = await commerce.transaction((tx) => completeOrder(tx, commerce.deps, order.id));
    expect(completed.status).toBe('COMPLETED');
    const [statusChange, brokerTwin, event] = await commerce.events(beforeCompletion);
    expect(statusChange).toMatchObject({ name: 'order.status_changed', payload: { from: 'FULFILLED', to: 'COMPLETED' } });
    expect(brokerTwin).toMatchObject({ name: 'shop.orders.status_changed.v1', payload: { from: 'FULFILLED', to: 'COMPLETED' } });
    expect(event).toMatchObject({
      name: 'order.completed',
      payload: {
        order_id: order.id.toString(),
        session_id: 's-life',
        lines: [{ product_id: tee.toString(), category_id: catalog.categoryIds[0]?.toString(), line_total: '39.80' }],
      },
    });
  });

  it('refuses an illegal transition naming both states, and changes nothing', async () => {
    const tee = await catalog.product('illegal-tee', '10.00', 5);
    const order = await checkout(await cartWith('s-illegal', [[tee, 1]]), 's-illegal');
    const error = await refusal(commerce.transaction((tx) => completeOrder(tx, commerce.deps, order.id)));
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { from: 'PENDING_PAYMENT', to: 'COMPLETED' } });
    expect((await commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe('PENDING_PAYMENT');
  });

  it('refuses payment once the stock hold has expired, even before a sweep has released it', async () => {
    const tee = await catalog.product('late-tee', '10.00', 5);
    const order = await checkout(await cartWith('s-late', [[tee, 2]]), 's-late');
    const prisma = commerce.platform.database.prisma;
    const [hold] = await prisma.inventoryReservation.findMany({ where: { orderId: order.id } });
    const placedAt = commerce.deps.now();
    commerce.setNow(new Date((hold?.expiresAt.getTime() ?? 0) + 1_000));
    try {
      expect(await refusal(commerce.transaction((tx) => markOrderPaid(tx, commerce.deps, order.id)))).toMatchObject({
        code: 'BAD_USER_INPUT',
        message: `order ${order.number} can no longer be paid: its stock hold expired`,
      });
    } finally {
      commerce.setNow(placedAt);
    }
    expect(await prisma.order.findUniqueOrThrow({ where: { id: order.id } })).toMatchObject({ status: 'PENDING_PAYMENT', paidAt: null });
    expect(await stock(tee)).toMatchObject({ onHand: 5, reserved: 2 });
  });

  it('releases the held stock when an unpaid order is cancelled, and returns it when a paid one is', async () => {
    const tee = await catalog.product('cancel-tee', '10.00', 4);
    const unpaid = await checkout(await cartWith('s-cancel-1', [[tee, 3]]), 's-cancel-1');
    const before = await commerce.lastEventId();
    await commerce.transaction((tx) => cancelOrder(tx, commerce.deps, unpaid.id, 'changed my mind'));
    expect(await stock(tee)).toMatchObject({ onHand: 4, reserved: 0 });
    expect((await commerce.events(before)).map((event) => [event.name, event.payload.reason])).toEqual([
      ['order.status_changed', 'changed my mind'],
      ['shop.orders.status_changed.v1', undefined],
      ['shop.inventory.stock_changed.v1', 'reservation_released'],
    ]);

    const paid = await checkout(await cartWith('s-cancel-2', [[tee, 2]]), 's-cancel-2');
    await commerce.transaction((tx) => markOrderPaid(tx, commerce.deps, paid.id));
    expect(await stock(tee)).toMatchObject({ onHand: 2, reserved: 0 });
    await commerce.transaction((tx) => cancelOrder(tx, commerce.deps, paid.id, 'out of stock at the carrier'));
    expect(await stock(tee)).toMatchObject({ onHand: 4, reserved: 0 });
  });

  it('rolls a failed checkout back whole: no order, no hold, no event, the cart still open', async () => {
    const plenty = await catalog.product('rollback-plenty', '10.00', 10);
    const scarce = await catalog.product('rollback-scarce', '10.00', 1);
    const cartId = await cartWith('s-rollback', [
      [plenty, 2],
      [scarce, 2],
    ]);
    const before = await commerce.lastEventId();
    const error = await refusal(checkout(cartId, 's-rollback'));
    expect(error.message).toBe('not enough stock for co-rollback-scarce: 2 requested, 1 available');
    expect(await commerce.events(before)).toEqual([]);
    expect(await commerce.platform.database.prisma.order.count({ where: { cartId } })).toBe(0);
    expect(await stock(plenty)).toMatchObject({ onHand: 10, reserved: 0 });
    expect((await commerce.platform.database.prisma.cart.findUniqueOrThrow({ where: { id: cartId } })).status).toBe('ACTIVE');
  });

  it('never sells more than there is when many shoppers check out the last units at once', async () => {
    const last = await catalog.product('last-units', '10.00', 3);
    const shoppers = Array.from({ length: 12 }, (_, i) => `s-race-${i}`);
    const carts = await Promise.all(shoppers.map((sessionId) => cartWith(sessionId, [[last, 1]])));
    const results = await Promise.allSettled(carts.map((cartId, i) => checkout(cartId, shoppers[i] ?? '')));
    const placed = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(placed).toHaveLength(3);
    expect(refused).toHaveLength(9);
    for (const result of refused)
      expect((result.reason as Error).message).toMatch(/^not enough stock for co-last-units: 1 requested, 0 available$/);
    expect(await stock(last)).toMatchObject({ onHand: 3, reserved: 3 });
  });

  it("holds a business customer's order for approval, then for payment", async () => {
    const tee = await catalog.product('b2b-tee', '10.00', 5);
    const customer = await commerce.platform.database.prisma.customer.create({
      data: { channelId: catalog.channelId, email: 'buyer@corp.example', passwordHash: 'x', isBusiness: true, approvalStatus: 'APPROVED' },
    });
    const cartId = await commerce.transaction(async (tx) => {
      const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper: { customerId: customer.id } });
      await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper: { customerId: customer.id }, productId: tee, quantity: 1 });
      return cart.id;
    });
    const order = await commerce.transaction((tx) =>
      placeOrder(tx, commerce.deps, {
        cartId,
        shopper: { customerId: customer.id },
        email: customer.email,
        billingAddress: ADDRESS,
        shippingAddress: ADDRESS,
      }),
    );
    expect(order.status).toBe('AWAITING_APPROVAL');
    expect(await refusal(commerce.transaction((tx) => markOrderPaid(tx, commerce.deps, order.id)))).toMatchObject({
      details: { from: 'AWAITING_APPROVAL', to: 'PLACED' },
    });
    expect((await commerce.transaction((tx) => approveOrder(tx, commerce.deps, order.id))).status).toBe('PENDING_PAYMENT');
    expect((await commerce.transaction((tx) => markOrderPaid(tx, commerce.deps, order.id))).status).toBe('PLACED');
  });

  it('requests a fraud check naming each tripped rule', async () => {
    const watch = await catalog.product('fraud-watch', '2500.00', 2);
    const before = await commerce.lastEventId();
    const order = await checkout(await cartWith('s-fraud', [[watch, 1]]), 's-fraud', {
      shippingAddress: { ...ADDRESS, countryCode: 'FR' },
    });
    const fraud = (await commerce.events(before)).find((event) => event.name === 'shop.fraud.check_requested.v1');
    expect(fraud?.payload).toMatchObject({
      order_id: order.id.toString(),
      total: '2500.00',
      rules_tripped: [
        { rule: 'order_total_above', detail: 'total 2500.00 EUR is above the threshold 2000.00' },
        { rule: 'country_mismatch', detail: 'billing country DE differs from shipping country FR' },
      ],
    });
  });

  it('emits shop.orders.modified.v1 when an address changes, and refuses it once fulfilled', async () => {
    const tee = await catalog.product('address-tee', '10.00', 5);
    const order = await checkout(await cartWith('s-address', [[tee, 1]]), 's-address');
    const before = await commerce.lastEventId();
    await commerce.transaction((tx) =>
      changeOrderAddresses(tx, commerce.deps, order.id, { shippingAddress: { ...ADDRESS, city: 'Hamburg', postalCode: '20095' } }),
    );
    expect(await commerce.events(before)).toMatchObject([{ name: 'shop.orders.modified.v1', payload: { changes: ['shipping_address'] } }]);
    await commerce.transaction((tx) => markOrderPaid(tx, commerce.deps, order.id));
    await commerce.transaction((tx) => fulfilOrder(tx, commerce.deps, order.id));
    const error = await refusal(
      commerce.transaction((tx) => changeOrderAddresses(tx, commerce.deps, order.id, { billingAddress: ADDRESS })),
    );
    expect(error.message).toBe(`order ${order.number} is FULFILLED: its addresses can no longer change`);
  });

  it('validates addresses and email, naming the field', async () => {
    const tee = await catalog.product('validate-tee', '10.00', 5);
    const cartId = await cartWith('s-validate', [[tee, 1]]);
    expect(await refusal(checkout(cartId, 's-validate', { email: 'not-an-email' }))).toMatchObject({ details: { field: 'email' } });
    expect(await refusal(checkout(cartId, 's-validate', { shippingAddress: { ...ADDRESS, countryCode: 'Germany' } }))).toMatchObject({
      message: 'shippingAddress.countryCode must be at most 2 characters',
    });
    expect(await refusal(checkout(cartId, 's-validate', { billingAddress: { ...ADDRESS, city: 'x'.repeat(101) } }))).toMatchObject({
      details: { field: 'billingAddress.city' },
    });
  });

  it('ships to the billing address when no shipping address is given', async () => {
    const tee = await catalog.product('ship-to-billing-tee', '10.00', 5);
    const cartId = await cartWith('s-ship-to-billing', [[tee, 1]]);
    const order = await commerce.transaction((tx) =>
      placeOrder(tx, commerce.deps, {
        cartId,
        shopper: { sessionId: 's-ship-to-billing' },
        email: 'ada@example.com',
        billingAddress: { ...ADDRESS, city: ' Hamburg ' },
      }),
    );
    expect(order.billingAddress).toMatchObject({ city: 'Hamburg' });
    expect(order.shippingAddress).toEqual(order.billingAddress);
  });

  it('expires a hold that ran out: the stock goes back and the unpaid order is cancelled', async () => {
    const tee = await catalog.product('expiry-tee', '10.00', 2);
    const order = await checkout(await cartWith('s-expiry', [[tee, 2]]), 's-expiry');
    const sweep = (asOf: string) =>
      commerce.transaction((tx) => expireStaleReservations(tx, commerce.deps, { asOf: new Date(asOf), limit: 100, run: SWEEP_RUN }));
    expect((await sweep('2026-11-23T10:29:00.000Z')).cancelledOrderIds).toEqual([]);
    const before = await commerce.lastEventId();
    // Other tests' unpaid orders ran out too: this one is among them.
    const swept = await sweep('2026-11-23T10:31:00.000Z');
    expect(swept).toMatchObject({ faults: [], more: false });
    expect(swept.cancelledOrderIds).toContain(order.id);
    expect(await stock(tee)).toMatchObject({ onHand: 2, reserved: 0 });
    const expired = await commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id: order.id } });
    expect(expired).toMatchObject({ status: 'CANCELLED', cancelReason: 'the stock hold expired before payment' });
    const events = (await commerce.events(before)).filter((event) => event.payload.order_id === order.id.toString());
    expect(events).toMatchObject([
      {
        name: 'shop.inventory.stock_changed.v1',
        payload: { reason: 'reservation_released', previous_quantity: 0, new_quantity: 2, product_id: tee.toString() },
      },
      {
        name: 'order.status_changed',
        payload: { from: 'PENDING_PAYMENT', to: 'CANCELLED', reason: 'the stock hold expired before payment' },
      },
      { name: 'shop.orders.status_changed.v1', payload: { from: 'PENDING_PAYMENT', to: 'CANCELLED' } },
    ]);
    // A second pass finds nothing: the sweep can run any number of times.
    expect(await sweep('2026-11-23T10:32:00.000Z')).toMatchObject({ orders: 0, reservations: 0, more: false });
  });
});
