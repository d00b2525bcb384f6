import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOutbox, type EventPayloads, type RunningOutbox } from '@shop/platform';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { registerCustomer } from '../../src/accounts/customers.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { completeOrder, fulfilOrder, markOrderPaid } from '../../src/orders/order-transitions.ts';
import { attributeCartAdd, attributePurchase, trackingListeners } from '../../src/tracking/attribution.ts';
import { ADDRESS, openCommerce, seedCatalog, type Catalog, type Commerce } from '../support/commerce.ts';
import { recordEvents, sessionId, trackingEvent } from '../support/tracking.ts';
import { waitFor } from '../../../../test/support/wait.ts';

let commerce: Commerce;
let catalog: Catalog;
let outbox: RunningOutbox;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

beforeAll(async () => {
  commerce = await openCommerce('tracking_attribution');
  catalog = await seedCatalog(commerce, 'ta');
  outbox = startOutbox(commerce.platform, { listeners: trackingListeners, idleMs: 20 });
});

afterAll(async () => {
  await outbox?.stop();
  await commerce?.close();
});

const pool = () => commerce.platform.database.pool;
const ago = (at: Date, ms: number) => new Date(at.getTime() - ms);

interface AttributionRow {
  tracking_event_id: string;
  attribution_type: string;
  product_id: string | null;
  category_id: string | null;
  brand_id: string | null;
  order_id: string | null;
  attributed_revenue: string | null;
  created_at: Date;
}

async function attributionsOf(eventIds: bigint[]): Promise<AttributionRow[]> {
  const { rows } = await pool().query<AttributionRow>(
    `SELECT tracking_event_id::text, attribution_type, product_id::text, category_id::text, brand_id::text, order_id::text,
            attributed_revenue::text, created_at
       FROM tracking_attributions WHERE tracking_event_id = ANY($1::bigint[]) ORDER BY tracking_attributions.tracking_event_id, tracking_attributions.product_id`,
    [eventIds.map(String)],
  );
  return rows;
}

/** Waits until the listener has handled every in-process event written so far. */
async function dispatched(listener: string): Promise<void> {
  const waiting = async () =>
    (
      await pool().query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM outbox_events e
          WHERE e.name = $1 AND NOT EXISTS (SELECT 1 FROM outbox_deliveries d WHERE d.event_id = e.id AND d.listener = $2 AND d.status = 'done')`,
        [listener === 'attribute_cart_add' ? 'cart.item_added' : 'order.completed', listener],
      )
    ).rows[0]?.waiting;
  await waitFor(async () => (await waiting()) === 0, 10_000, `${listener} to handle its events`, 20);
}

async function addToCart(shopper: { sessionId?: string; customerId?: bigint }, productId: bigint): Promise<bigint> {
  return commerce.transaction(async (tx) => {
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId, quantity: 2 });
    return cart.id;
  });
}

describe('cart.item_added (attribute_cart_add, run by the dispatcher)', () => {
  it('credits every click of the session within the 24 hours before the add, and nothing else', async () => {
    const at = new Date('2026-11-24T12:00:00.000Z');
    commerce.setNow(at);
    const session = sessionId('cart');
    const [inside, justInside, boundary, outside, impression, otherSession, after] = (await recordEvents(pool(), [
      trackingEvent({ sessionId: session, createdAt: ago(at, HOUR) }),
      trackingEvent({ sessionId: session, entityId: 2n, createdAt: ago(at, 23 * HOUR + 59 * MINUTE) }),
      trackingEvent({ sessionId: session, entityId: 3n, createdAt: ago(at, 24 * HOUR) }),
      trackingEvent({ sessionId: session, entityId: 4n, createdAt: ago(at, 24 * HOUR + MINUTE) }),
      trackingEvent({ sessionId: session, eventType: 'impression', createdAt: ago(at, MINUTE) }),
      trackingEvent({ sessionId: sessionId('other'), createdAt: ago(at, MINUTE) }),
      trackingEvent({ sessionId: session, createdAt: new Date(at.getTime() + MINUTE) }),
    ])) as [bigint, bigint, bigint, bigint, bigint, bigint, bigint];
    const tee = await catalog.product('attr-tee', '19.90', 10);

    await addToCart({ sessionId: session }, tee);
    await dispatched('attribute_cart_add');

    const rows = await attributionsOf([inside, justInside, boundary, outside, impression, otherSession, after]);
    const expected = (clickId: bigint) => ({
      tracking_event_id: clickId.toString(),
      attribution_type: 'cart_add',
      product_id: tee.toString(),
      category_id: catalog.categoryIds[0]?.toString(),
      brand_id: catalog.brandId.toString(),
      order_id: null,
      attributed_revenue: null,
      created_at: at,
    });
    expect(rows).toEqual([expected(inside), expected(justInside), expected(boundary)]);
  });

  it("credits the signed-in customer's clicks from any session", async () => {
    const at = new Date('2026-11-25T12:00:00.000Z');
    commerce.setNow(at);
    const customer = await commerce.transaction((tx) =>
      registerCustomer(tx, commerce.deps, {
        channelId: catalog.channelId,
        email: `cart-${sessionId()}@example.com`,
        password: 'correct horse battery',
      }),
    );
    const [phone, laptop, stranger] = (await recordEvents(pool(), [
      trackingEvent({ sessionId: sessionId('phone'), userId: customer.id, isAuthenticated: true, createdAt: ago(at, 2 * HOUR) }),
      trackingEvent({ sessionId: sessionId('laptop'), userId: customer.id, isAuthenticated: true, createdAt: ago(at, 3 * HOUR) }),
      trackingEvent({ sessionId: sessionId('stranger'), userId: customer.id + 1000n, isAuthenticated: true, createdAt: ago(at, HOUR) }),
    ])) as [bigint, bigint, bigint];
    const mug = await catalog.product('attr-mug', '9.00', 10);

    await addToCart({ customerId: customer.id }, mug);
    await dispatched('attribute_cart_add');

    const rows = await attributionsOf([phone, laptop, stranger]);
    expect(rows.map((row) => row.tracking_event_id)).toEqual([phone.toString(), laptop.toString()]);
  });

  it('creates no duplicates when an event is delivered again or the same product is added again', async () => {
    const at = new Date('2026-11-26T12:00:00.000Z');
    commerce.setNow(at);
    const session = sessionId('again');
    const [click] = (await recordEvents(pool(), [trackingEvent({ sessionId: session, createdAt: ago(at, HOUR) })])) as [bigint];
    const cap = await catalog.product('attr-cap', '5.00', 10);
    const cartId = await addToCart({ sessionId: session }, cap);
    await commerce.transaction((tx) =>
      addCartLine(tx, commerce.deps, { cartId, shopper: { sessionId: session }, productId: cap, quantity: 1 }),
    );
    await dispatched('attribute_cart_add');
    expect(await attributionsOf([click])).toHaveLength(1);

    // Redelivery, as after a crash between the effect and its commit elsewhere: every listener runs again.
    await pool().query(`DELETE FROM outbox_deliveries WHERE listener = 'attribute_cart_add'`);
    await pool().query(`UPDATE outbox_events SET dispatched_at = NULL, next_attempt_at = now() WHERE name = 'cart.item_added'`);
    await dispatched('attribute_cart_add');
    expect(await attributionsOf([click])).toHaveLength(1);
  });

  it('does nothing for a cart with neither customer nor session', async () => {
    const payload = {
      event_id: '00000000-0000-4000-8000-000000000000',
      schema_version: 1,
      occurred_at: '2026-11-26T12:00:00.000Z',
      cart_id: '1',
      cart_line_id: '1',
      customer_id: null,
      session_id: null,
      product_id: '1',
      category_ids: [],
      brand_id: null,
      quantity: 1,
      added_at: '2026-11-26T12:00:00.000Z',
    } satisfies EventPayloads['cart.item_added'];
    expect(await commerce.transaction((tx) => attributeCartAdd(tx, payload))).toBe(0);
  });
});

describe('order.completed (attribute_purchase, run by the dispatcher)', () => {
  it('credits every click within the 24 hours before completion with each order line and its total', async () => {
    const placedAt = new Date('2026-11-27T09:00:00.000Z');
    commerce.setNow(placedAt);
    const session = sessionId('order');
    const customer = await commerce.transaction((tx) =>
      registerCustomer(tx, commerce.deps, {
        channelId: catalog.channelId,
        email: `order-${sessionId()}@example.com`,
        password: 'correct horse battery',
      }),
    );
    const shopper = { customerId: customer.id, sessionId: session };
    const shirt = await catalog.product('attr-shirt', '25.00', 10);
    const socks = await catalog.product('attr-socks', '4.50', 10);
    const order = await commerce.transaction(async (tx) => {
      const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
      await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId: shirt, quantity: 1 });
      await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId: socks, quantity: 3 });
      const placed = await placeOrder(tx, commerce.deps, {
        cartId: cart.id,
        shopper,
        email: 'ada@example.com',
        billingAddress: ADDRESS,
        shippingAddress: ADDRESS,
      });
      await markOrderPaid(tx, commerce.deps, placed.id);
      return fulfilOrder(tx, commerce.deps, placed.id);
    });

    const completedAt = new Date('2026-11-28T09:00:00.000Z');
    const [bySession, byUser, tooEarly, impression] = (await recordEvents(pool(), [
      trackingEvent({ sessionId: session, createdAt: ago(completedAt, 23 * HOUR + 59 * MINUTE) }),
      trackingEvent({
        sessionId: sessionId('elsewhere'),
        userId: customer.id,
        isAuthenticated: true,
        entityType: 'hero',
        createdAt: ago(completedAt, HOUR),
      }),
      trackingEvent({ sessionId: session, createdAt: ago(completedAt, 24 * HOUR + MINUTE) }),
      trackingEvent({ sessionId: session, eventType: 'impression', createdAt: ago(completedAt, HOUR) }),
    ])) as [bigint, bigint, bigint, bigint];

    commerce.setNow(completedAt);
    await commerce.transaction((tx) => completeOrder(tx, commerce.deps, order.id));
    await dispatched('attribute_purchase');

    const purchases = (await attributionsOf([bySession, byUser, tooEarly, impression])).filter(
      (row) => row.attribution_type === 'purchase',
    );
    const line = (clickId: bigint, productId: bigint, revenue: string) => ({
      tracking_event_id: clickId.toString(),
      attribution_type: 'purchase',
      product_id: productId.toString(),
      category_id: catalog.categoryIds[0]?.toString(),
      brand_id: catalog.brandId.toString(),
      order_id: order.id.toString(),
      attributed_revenue: revenue,
      created_at: completedAt,
    });
    expect(purchases).toEqual([
      line(bySession, shirt, '25.000'),
      line(bySession, socks, '13.500'),
      line(byUser, shirt, '25.000'),
      line(byUser, socks, '13.500'),
    ]);

    // The same event again (a redelivery) adds nothing.
    const { rows } = await pool().query<{ payload: EventPayloads['order.completed'] }>(
      `SELECT payload FROM outbox_events WHERE name = 'order.completed' ORDER BY id DESC LIMIT 1`,
    );
    const payload = rows[0]?.payload;
    if (payload === undefined) throw new Error('no order.completed event');
    expect(await commerce.transaction((tx) => attributePurchase(tx, payload))).toBe(0);
    const again = await attributionsOf([bySession, byUser, tooEarly, impression]);
    expect(again.filter((row) => row.attribution_type === 'purchase')).toEqual(purchases);
  });
});
