// Gateway calls against a small pool: a worker with DATABASE_POOL_MAX=5 captures 30 card orders
// fulfilled at once, each capture a transaction that waits for the test gateway. A capture must not wait
// for a second connection to read the gateway key while every connection is held by captures doing
// the same (the key is kept, and the worker runs fewer activities at once than it has connections).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { givenCredentials, HttpPaymentGateway } from '@shop/platform';
import { addCartLine, createCart } from '@shop/domain/carts';
import { checkout } from '@shop/domain/flows';
import { type DomainDeps } from '@shop/domain/kernel';
import { fulfilOrder } from '@shop/domain/orders';
import { workflowIds } from '@shop/domain/workflows';
import { waitFor } from '../support/wait.ts';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';
import { openShopGateway, openWorkflowShop, type ShopGateway, type WorkflowShop } from '../support/workflows.ts';

const GATEWAY_KEY = 'gateway_pool_key';
const ORDERS = 30;

let shop: WorkflowShop;
let gateway: ShopGateway;

beforeAll(async () => {
  shop = await openWorkflowShop('gateway-pool');
  gateway = await openShopGateway(shop, GATEWAY_KEY);
  await shop.startWorker({ PAYMENT_GATEWAY_URL: gateway.url, DATABASE_POOL_MAX: '5' });
}, 180_000);

afterAll(async () => {
  await shop?.close();
  await gateway?.close();
});

/** Card orders of one unit each, authorized at checkout (PLACED). */
async function placeCardOrders(count: number): Promise<bigint[]> {
  const paying: DomainDeps = {
    ...shop.deps,
    gateway: new HttpPaymentGateway({ baseUrl: gateway.url, credentials: givenCredentials(GATEWAY_KEY) }),
  };
  const productId = await shop.catalog.product('pool', '10.00', count);
  const ids: bigint[] = [];
  for (let n = 0; n < count; n += 1) {
    const shopper = { sessionId: `s-gateway-pool-${n}` };
    const cart = await shop.commerce.transaction(async (tx) => {
      const created = await createCart(tx, paying, { channelId: shop.catalog.channelId, shopper });
      await addCartLine(tx, paying, { cartId: created.id, shopper, productId, quantity: 1 });
      return created;
    });
    const input = {
      cartId: cart.id,
      shopper,
      email: 'ada@example.com',
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
      idempotencyKey: `gateway-pool-${n}`,
      card: { token: `tok_pool_${n}` },
    };
    ids.push((await checkout(shop.commerce.transaction, paying, input)).id);
  }
  return ids;
}

/** Each completed captureOrderTenders activity of the order's lifecycle: the attempt it succeeded at, and why the one before failed. */
async function captureAttempts(orderId: bigint): Promise<{ attempt: number; lastFailure: string | null }[]> {
  const history = await shop.client.workflow.getHandle(workflowIds.orderLifecycle(orderId.toString())).fetchHistory();
  const events = history.events ?? [];
  const captures = new Set(
    events
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'captureOrderTenders')
      .map((event) => String(event.eventId)),
  );
  return events.flatMap(({ activityTaskStartedEventAttributes: started }) =>
    started != null && captures.has(String(started.scheduledEventId))
      ? [{ attempt: started.attempt ?? 0, lastFailure: started.lastFailure?.message ?? null }]
      : [],
  );
}

/** Sessions of the shop's database waiting for a row lock. */
async function waitingForLocks(): Promise<number> {
  const { rows } = await shop.commerce.platform.database.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return rows[0]?.n ?? 0;
}

describe('captures against a pool of 5 connections', () => {
  it(`captures ${ORDERS} orders fulfilled at once, each at its first attempt`, async () => {
    const orderIds = await placeCardOrders(ORDERS);
    for (const id of orderIds) await shop.started(workflowIds.orderLifecycle(id.toString()));

    // The tenders' rows held here stand for a slow gateway: each capture's transaction holds its
    // connection at the tender's lock while the others pile up, as they would behind slow answers.
    const locker = await shop.commerce.platform.database.pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM payment_tenders WHERE order_id = ANY($1::bigint[]) FOR UPDATE', [orderIds.map(String)]);
      // One commit fulfils them all, so the lifecycles ask the worker for their captures together.
      await shop.transaction(async (tx) => {
        for (const id of orderIds) await fulfilOrder(tx, shop.deps, id);
      });
      await waitFor(async () => (await waitingForLocks()) >= 3, 60_000, 'captures waiting at their tenders');
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    const { prisma } = shop.commerce.platform.database;
    const captured = () => prisma.paymentTender.count({ where: { orderId: { in: orderIds }, status: 'CAPTURED' } });
    await waitFor(async () => (await captured()) === ORDERS, 180_000, `${ORDERS} captures`);

    const attempts = await Promise.all(orderIds.map(captureAttempts));
    expect(attempts).toEqual(orderIds.map(() => [{ attempt: 1, lastFailure: null }]));
  }, 300_000);
});
