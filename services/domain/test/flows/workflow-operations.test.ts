// The domain operations the worker's activities call, on a real database: each safe to run twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { deleteExpiredCarts } from '../../src/carts/expired-carts.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { expireStaleReservations, expireUnpaidOrder, HELD_FOR_SETTLED_ORDER, orderLifecycleView } from '../../src/flows/order-expiry.ts';
import { remindOrderApproval } from '../../src/orders/order-approval.ts';
import { markOrderPaid } from '../../src/orders/order-transitions.ts';
import { registerCustomer } from '../../src/accounts/customers.ts';
import { customerApprovalView, expireCustomerApproval, remindCustomerApproval } from '../../src/accounts/customer-approval.ts';
import { ADDRESS, openCommerce, seedCatalog, type Catalog, type Commerce } from '../support/commerce.ts';

let commerce: Commerce;
let catalog: Catalog;
const PLACED_AT = new Date('2026-11-23T10:00:00.000Z');
const RUN = { workflow: 'ExpireStaleReservationsWorkflow', workflowId: 'sweep-test', runId: 'run-1' };
let sessions = 0;

beforeAll(async () => {
  commerce = await openCommerce('workflow_ops');
  catalog = await seedCatalog(commerce, 'wo');
});

afterAll(async () => {
  await commerce?.close();
});

async function order(sku: string, options: { quantity?: number; customerId?: bigint } = {}) {
  commerce.setNow(PLACED_AT);
  const productId = await catalog.product(sku, '10.00', 5);
  sessions += 1;
  const shopper = options.customerId === undefined ? { sessionId: `s-wo-${sessions}` } : { customerId: options.customerId };
  const placed = await commerce.transaction(async (tx) => {
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId, quantity: options.quantity ?? 1 });
    return placeOrder(tx, commerce.deps, {
      cartId: cart.id,
      shopper,
      email: 'ada@example.com',
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
    });
  });
  return { order: placed, productId };
}

const at = (iso: string) => new Date(iso);
const sweep = (asOf: string, limit = 100) =>
  commerce.transaction((tx) => expireStaleReservations(tx, commerce.deps, { asOf: at(asOf), limit, run: RUN }));

describe('the payment deadline of one order', () => {
  it('leaves an order whose hold has not run out, and cancels it once it has; twice changes nothing', async () => {
    const { order: placed, productId } = await order('deadline', { quantity: 2 });
    expect(await commerce.transaction((tx) => orderLifecycleView(tx, placed.id))).toMatchObject({
      status: 'PENDING_PAYMENT',
      placedAt: PLACED_AT.toISOString(),
      paidAt: null,
      holdExpiresAt: '2026-11-23T10:30:00.000Z',
    });
    expect(await commerce.transaction((tx) => expireUnpaidOrder(tx, commerce.deps, placed.id, at('2026-11-23T10:29:59.000Z')))).toBe(
      'PENDING_PAYMENT',
    );
    expect(await commerce.transaction((tx) => expireUnpaidOrder(tx, commerce.deps, placed.id, at('2026-11-23T10:30:00.000Z')))).toBe(
      'CANCELLED',
    );
    const before = await commerce.lastEventId();
    expect(await commerce.transaction((tx) => expireUnpaidOrder(tx, commerce.deps, placed.id, at('2026-11-23T10:31:00.000Z')))).toBe(
      'CANCELLED',
    );
    expect(await commerce.events(before)).toEqual([]);
    const level = await commerce.platform.database.prisma.stockLevel.findUniqueOrThrow({
      where: { productId_locationId: { productId, locationId: catalog.locationId } },
    });
    expect(level).toMatchObject({ onHand: 5, reserved: 0 });
    expect(await commerce.transaction((tx) => orderLifecycleView(tx, placed.id))).toMatchObject({
      status: 'CANCELLED',
      holdExpiresAt: null,
    });
  });

  it('leaves a paid order alone, and answers null for an order that does not exist', async () => {
    const { order: placed } = await order('paid-deadline');
    commerce.setNow(at('2026-11-23T10:05:00.000Z'));
    await commerce.transaction((tx) => markOrderPaid(tx, commerce.deps, placed.id));
    expect(await commerce.transaction((tx) => expireUnpaidOrder(tx, commerce.deps, placed.id, at('2026-11-24T00:00:00.000Z')))).toBe(
      'PLACED',
    );
    expect(await commerce.transaction((tx) => orderLifecycleView(tx, placed.id))).toMatchObject({
      status: 'PLACED',
      paidAt: '2026-11-23T10:05:00.000Z',
    });
    expect(await commerce.transaction((tx) => expireUnpaidOrder(tx, commerce.deps, 999_999n, at('2026-11-24T00:00:00.000Z')))).toBeNull();
  });
});

describe('the stale reservation sweep', () => {
  it('works in bounded passes and says when more may be due', async () => {
    await sweep('2030-01-01T00:00:00.000Z', 10_000); // whatever other tests left
    const orders = await Promise.all(['pass-1', 'pass-2', 'pass-3'].map((sku) => order(sku)));
    expect(await sweep('2026-11-23T11:00:00.000Z', 2)).toMatchObject({ orders: 2, reservations: 2, more: true });
    expect(await sweep('2026-11-23T11:00:00.000Z', 2)).toMatchObject({ orders: 1, reservations: 1, more: false });
    for (const { order: placed } of orders) {
      expect((await commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id: placed.id } })).status).toBe('CANCELLED');
    }
  });

  it('skips an order another transaction holds, and takes it on the next pass', async () => {
    const { order: locked } = await order('locked');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let lockTaken: () => void = () => undefined;
    const taken = new Promise<void>((resolve) => (lockTaken = resolve));
    const holder = commerce.platform.database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT 1 FROM orders WHERE id = ${locked.id} FOR UPDATE`;
      lockTaken();
      await held;
    });
    await taken;
    expect(await sweep('2026-11-23T11:00:00.000Z')).toMatchObject({ orders: 0, reservations: 0, more: false });
    release();
    await holder;
    expect(await sweep('2026-11-23T11:00:00.000Z')).toMatchObject({ orders: 1, cancelledOrderIds: [locked.id] });
  });

  it('releases a leftover hold of an order no longer waiting and records one fault for it', async () => {
    const { order: placed } = await order('leftover');
    commerce.setNow(at('2026-11-23T10:05:00.000Z'));
    await commerce.transaction((tx) => markOrderPaid(tx, commerce.deps, placed.id));
    // A hold that should not exist any more: the order is paid.
    await commerce.platform.database.pool.query(
      "INSERT INTO inventory_reservations (product_id, location_id, order_id, quantity, expires_at, updated_at) SELECT product_id, $2, $1, 1, '2026-11-23T10:10:00Z', now() FROM order_lines WHERE order_id = $1",
      [placed.id.toString(), catalog.locationId.toString()],
    );
    await commerce.platform.database.pool.query(
      'UPDATE stock_levels SET reserved = reserved + 1 WHERE location_id = $1 AND product_id = (SELECT product_id FROM order_lines WHERE order_id = $2)',
      [catalog.locationId.toString(), placed.id.toString()],
    );
    const swept = await sweep('2026-11-23T11:00:00.000Z');
    expect(swept).toMatchObject({ orders: 1, reservations: 1, cancelledOrderIds: [], faults: [{ reason: HELD_FOR_SETTLED_ORDER }] });
    expect((await commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id: placed.id } })).status).toBe('PLACED');
    expect(await commerce.platform.database.prisma.workflowFault.findMany({ where: { entityId: placed.id.toString() } })).toMatchObject([
      {
        workflow: RUN.workflow,
        workflowId: RUN.workflowId,
        runId: RUN.runId,
        entityType: 'order',
        reason: HELD_FOR_SETTLED_ORDER,
        details: { status: 'PLACED' },
      },
    ]);
  });
});

describe('approvals', () => {
  it('reminds about a business account only while it waits, and rejects it at the expiry once', async () => {
    commerce.setNow(PLACED_AT);
    const customer = await commerce.transaction((tx) =>
      registerCustomer(tx, commerce.deps, {
        channelId: catalog.channelId,
        email: 'buyer@acme.example',
        password: 'correct horse battery',
        isBusiness: true,
      }),
    );
    expect(await commerce.transaction((tx) => customerApprovalView(tx, customer.id))).toEqual({
      approvalStatus: 'PENDING',
      channelId: catalog.channelId.toString(),
      requestedAt: customer.createdAt.toISOString(),
    });
    const before = await commerce.lastEventId();
    expect(await commerce.transaction((tx) => remindCustomerApproval(tx, commerce.deps, customer.id, at('2026-11-30T10:00:00.000Z')))).toBe(
      true,
    );
    expect(await commerce.transaction((tx) => expireCustomerApproval(tx, commerce.deps, customer.id))).toBe('REJECTED');
    expect(await commerce.transaction((tx) => expireCustomerApproval(tx, commerce.deps, customer.id))).toBe('REJECTED');
    expect(await commerce.transaction((tx) => remindCustomerApproval(tx, commerce.deps, customer.id, at('2026-11-30T10:00:00.000Z')))).toBe(
      false,
    );
    expect((await commerce.events(before)).map((event) => [event.name, event.payload.approval_status ?? event.payload.approval])).toEqual([
      ['shop.approvals.reminder_due.v1', 'customer_registration'],
      ['customer.approval_changed', 'REJECTED'],
    ]);
  });

  it('reminds about an order only while it waits for approval', async () => {
    const { order: placed } = await order('not-waiting');
    expect(await commerce.transaction((tx) => remindOrderApproval(tx, commerce.deps, placed.id))).toBe(false);
  });
});

describe('expired carts', () => {
  it('deletes ACTIVE carts past their expiry, in bounded passes, and keeps the others', async () => {
    const { prisma } = commerce.platform.database;
    const cart = (expiresAt: string, status: 'ACTIVE' | 'CONVERTED' = 'ACTIVE') =>
      prisma.cart.create({
        data: { channelId: catalog.channelId, sessionId: 's-cart', currency: 'EUR', expiresAt: at(expiresAt), status },
      });
    await commerce.transaction((tx) => deleteExpiredCarts(tx, { asOf: at('2026-01-01T00:00:00.000Z'), limit: 10_000 }));
    const old = await Promise.all([cart('2026-01-01T00:00:00.000Z'), cart('2026-01-02T00:00:00.000Z')]);
    const fresh = await cart('2027-01-01T00:00:00.000Z');
    const converted = await cart('2026-01-01T00:00:00.000Z', 'CONVERTED');
    const asOf = at('2026-06-01T00:00:00.000Z');
    expect(await commerce.transaction((tx) => deleteExpiredCarts(tx, { asOf, limit: 1 }))).toEqual({ deleted: 1, more: true });
    expect(await commerce.transaction((tx) => deleteExpiredCarts(tx, { asOf, limit: 1 }))).toEqual({ deleted: 1, more: true });
    expect(await commerce.transaction((tx) => deleteExpiredCarts(tx, { asOf, limit: 1 }))).toEqual({ deleted: 0, more: false });
    expect(await prisma.cart.count({ where: { id: { in: old.map((c) => c.id) } } })).toBe(0);
    expect(await prisma.cart.count({ where: { id: { in: [fresh.id, converted.id] } } })).toBe(2);
  });
});
