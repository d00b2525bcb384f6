import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { givenCredentials, HttpPaymentGateway, type EventPayloads } from '@shop/platform';
import { addCartLine, createCart } from '@shop/domain/carts';
import { cancelOrder, checkout } from '@shop/domain/flows';
import { type DomainDeps } from '@shop/domain/kernel';
import { completeOrder, fulfilOrder, markOrderPaid } from '@shop/domain/orders';
import { GATEWAY_TRANSACTION, releaseTender, tenderKeys } from '@shop/domain/tenders';
import { TestGatewayControl } from '../../tools/test-gateway/src/index.ts';
import { QUERIES, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { TemporalWorkflowEngine } from '../../services/api/src/workflows/temporal-engine.ts';
import { workflowTriggers } from '../../services/api/src/workflows/workflow-triggers.ts';
import { eventually, waitFor } from '../support/wait.ts';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';
import { expectFiredAt, timeSkippingShopPerGroup } from '../support/time-skipping.ts';
import {
  openShopGateway,
  openWorkflowShop,
  PAYMENT_WINDOW_MS,
  runTimers,
  type RunningWorker,
  type ShopGateway,
  type WorkflowShop,
} from '../support/workflows.ts';

const GATEWAY_KEY = 'lifecycle_gateway_key';

let shop: WorkflowShop;
let worker: RunningWorker;
let gateway: ShopGateway;

beforeAll(async () => {
  shop = await openWorkflowShop('lifecycle');
  gateway = await openShopGateway(shop, GATEWAY_KEY);
  worker = await shop.startWorker({ PAYMENT_GATEWAY_URL: gateway.url });
}, 180_000);

afterAll(async () => {
  await shop?.close();
  await gateway?.close();
});

const orderRow = (id: bigint, on: WorkflowShop = shop) => on.commerce.platform.database.prisma.order.findUniqueOrThrow({ where: { id } });
const stockOf = (productId: bigint, on: WorkflowShop = shop) =>
  on.commerce.platform.database.prisma.stockLevel.findUniqueOrThrow({
    where: { productId_locationId: { productId, locationId: on.catalog.locationId } },
  });
const lifecycle = (orderId: bigint) => shop.started(workflowIds.orderLifecycle(orderId.toString()));

async function executionsOf(workflowId: string): Promise<number> {
  let count = 0;
  for await (const _execution of shop.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) count += 1;
  return count;
}

async function statusChanges(orderId: bigint, on: WorkflowShop = shop): Promise<{ from: string | null; to: string }[]> {
  const { rows } = await on.commerce.platform.database.pool.query<{ payload: { from: string | null; to: string } }>(
    "SELECT payload FROM outbox_events WHERE name = 'order.status_changed' AND payload->>'order_id' = $1 ORDER BY id",
    [orderId.toString()],
  );
  return rows.map(({ payload }) => ({ from: payload.from, to: payload.to }));
}

const placed = (orderId: bigint, orderNumber: string): EventPayloads['order.status_changed'] => ({
  event_id: randomUUID(),
  schema_version: 1,
  occurred_at: new Date().toISOString(),
  order_id: orderId.toString(),
  order_number: orderNumber,
  from: null,
  to: 'PENDING_PAYMENT',
  reason: null,
});

/** Hands the event to the api's lifecycle starter again, as a redelivery by the outbox would. */
async function redeliver(event: EventPayloads['order.status_changed']): Promise<void> {
  const starter = workflowTriggers(new TemporalWorkflowEngine(shop.client)).find((listener) => listener.event === 'order.status_changed');
  await starter?.handle(shop.commerce.platform.database.prisma, event);
}

/** An order of 2 units of a new product, paid by card at checkout (so PLACED). */
async function placeWithCard(sku: string, token: string) {
  const paying: DomainDeps = {
    ...shop.deps,
    gateway: new HttpPaymentGateway({ baseUrl: gateway.url, credentials: givenCredentials(GATEWAY_KEY) }),
  };
  const productId = await shop.catalog.product(sku, '10.00', 5);
  const shopper = { sessionId: `s-lifecycle-${sku}` };
  const cart = await shop.commerce.transaction(async (tx) => {
    const created = await createCart(tx, paying, { channelId: shop.catalog.channelId, shopper });
    await addCartLine(tx, paying, { cartId: created.id, shopper, productId, quantity: 2 });
    return created;
  });
  const input = {
    cartId: cart.id,
    shopper,
    email: 'ada@example.com',
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    idempotencyKey: `lifecycle-${sku}`,
    card: { token },
  };
  return checkout(shop.commerce.transaction, paying, input);
}

describe('OrderLifecycleWorkflow', () => {
  it('starts once per order even when the start is redelivered, and answers its state', async () => {
    const { order } = await shop.placeOrder({ sku: 'once', holdMs: 60_000 });
    const handle = await lifecycle(order.id);
    // The outbox delivers at least once: the same event handed to the starter again must not start a second run.
    await redeliver(placed(order.id, order.number));
    await redeliver(placed(order.id, order.number));
    expect(await executionsOf(handle.workflowId)).toBe(1);
    await waitFor(
      async () => (await handle.query<{ status: string | null }>(QUERIES.state)).status === 'PENDING_PAYMENT',
      30_000,
      'the state query',
    );
    const state = await handle.query<{ status: string; deadline: string }>(QUERIES.state);
    expect(Date.parse(state.deadline)).toBeGreaterThan(Date.now());
    await shop.transaction((tx) => cancelOrder(tx, shop.deps, order.id, 'test over'));
    await expect(handle.result()).resolves.toEqual({ status: 'CANCELLED' });
  });

  it('stops the payment timer when the order is paid, then records a fault when it is not fulfilled in time', async () => {
    await shop.setSetting('workflows', { fulfilmentWindowHours: 0.001 });
    const { order, productId } = await shop.placeOrder({ sku: 'paid', holdMs: 5_000 });
    const handle = await lifecycle(order.id);
    await shop.transaction((tx) => markOrderPaid(tx, shop.deps, order.id));
    await waitFor(
      async () => (await shop.commerce.platform.database.prisma.workflowFault.count({ where: { entityId: order.id.toString() } })) === 1,
      30_000,
      'the fulfilment fault',
    );
    // The payment deadline can cancel nothing any more: the fulfilment window's timer fired (the fault), the
    // payment deadline's, if the run started it before the order was paid, was cancelled, and the run waits
    // with no timer left, for a signal only.
    await eventually(
      async () => {
        const { timers, idle } = await runTimers(handle);
        expect({ timers: timers.filter((timer) => timer !== 'cancelled'), idle }).toEqual({ timers: ['fired'], idle: true });
      },
      { timeoutMs: 30_000 },
    );
    expect(await orderRow(order.id)).toMatchObject({ status: 'PLACED' });
    expect(await stockOf(productId)).toMatchObject({ onHand: 4, reserved: 0 });
    const fault = await shop.commerce.platform.database.prisma.workflowFault.findFirstOrThrow({ where: { entityId: order.id.toString() } });
    expect(fault).toMatchObject({
      workflow: WORKFLOW_TYPES.orderLifecycle,
      workflowId: handle.workflowId,
      entityType: 'order',
      reason: 'fulfilment_overdue',
    });
    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(metrics).toContain('workflow_faults_total{workflow="OrderLifecycleWorkflow",reason="fulfilment_overdue",service="worker"} 1');
    expect(metrics).toMatch(/temporal_workflow_task_schedule_to_start_latency/);
    expect((await handle.query<{ status: string }>(QUERIES.state)).status).toBe('PLACED');
    await shop.setSetting('workflows', {});
    await shop.transaction((tx) => cancelOrder(tx, shop.deps, order.id, 'test over'));
    await expect(handle.result()).resolves.toEqual({ status: 'CANCELLED' });
    await shop.saveHistory(handle.workflowId, WORKFLOW_TYPES.orderLifecycle, 'fulfilment-overdue');
  });

  it('captures the card tender of a fulfilled order once, although the gateway committed the first capture and then failed', async () => {
    const control = new TestGatewayControl(gateway.url, GATEWAY_KEY);
    const order = await placeWithCard('captured', 'tok_lifecycle');
    expect(order.status).toBe('PLACED');
    const handle = await lifecycle(order.id);
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'capture', cardToken: 'tok_lifecycle' });

    await shop.transaction((tx) => fulfilOrder(tx, shop.deps, order.id));
    const { prisma } = shop.commerce.platform.database;
    await waitFor(
      async () => (await prisma.paymentTender.findFirstOrThrow({ where: { orderId: order.id } })).status === 'CAPTURED',
      60_000,
      'the capture',
    );
    const tender = await prisma.paymentTender.findFirstOrThrow({ where: { orderId: order.id } });
    expect(tender.capturedAmount.toFixed(2)).toBe(order.total.toFixed(2));
    const key = tenderKeys.capture(tender.id);
    expect((await control.requests()).filter((request) => request.idempotencyKey === key).map((request) => request.outcome)).toEqual([
      'executed',
      'replayed',
    ]);
    expect(
      (await control.operations()).filter(
        (operation) => operation.kind === 'capture' && operation.authorizationId === tender.gatewayReference,
      ),
    ).toHaveLength(1);

    await shop.transaction((tx) => completeOrder(tx, shop.deps, order.id));
    await expect(handle.result()).resolves.toEqual({ status: 'COMPLETED' });
    await shop.saveHistory(handle.workflowId, WORKFLOW_TYPES.orderLifecycle, 'captured');
    expect(await prisma.workflowFault.count({ where: { entityId: order.id.toString() } })).toBe(0);
  });

  it('captures the card of an order fulfilled and completed before the workflow saw it fulfilled', async () => {
    const control = new TestGatewayControl(gateway.url, GATEWAY_KEY);
    const order = await placeWithCard('completed-at-once', 'tok_lifecycle_completed');
    const handle = await lifecycle(order.id);

    await shop.transaction(async (tx) => {
      await fulfilOrder(tx, shop.deps, order.id);
      await completeOrder(tx, shop.deps, order.id);
    });
    await expect(handle.result()).resolves.toEqual({ status: 'COMPLETED' });
    const tender = await shop.commerce.platform.database.prisma.paymentTender.findFirstOrThrow({ where: { orderId: order.id } });
    expect({ status: tender.status, captured: tender.capturedAmount.toFixed(2) }).toEqual({
      status: 'CAPTURED',
      captured: order.total.toFixed(2),
    });
    expect(
      (await control.operations()).filter(
        (operation) => operation.kind === 'capture' && operation.authorizationId === tender.gatewayReference,
      ),
    ).toHaveLength(1);
    await shop.saveHistory(handle.workflowId, WORKFLOW_TYPES.orderLifecycle, 'completed-at-once');
  });

  it('records a fault when the gateway refuses the capture for good (the authorization expired), and goes on', async () => {
    const control = new TestGatewayControl(gateway.url, GATEWAY_KEY);
    const order = await placeWithCard('expired', 'tok_lifecycle_expired');
    const handle = await lifecycle(order.id);
    // Eight days on at the gateway: past the seven days an authorization holds.
    await control.setClock(new Date(Date.now() + 8 * 24 * 60 * 60 * 1000));
    try {
      await shop.transaction((tx) => fulfilOrder(tx, shop.deps, order.id));
      const { prisma } = shop.commerce.platform.database;
      await waitFor(
        async () => (await prisma.workflowFault.count({ where: { entityId: order.id.toString() } })) === 1,
        60_000,
        'the capture fault',
      );
      const fault = await prisma.workflowFault.findFirstOrThrow({ where: { entityId: order.id.toString() } });
      expect(fault).toMatchObject({ workflowId: handle.workflowId, reason: 'capture_refused' });
      expect(JSON.stringify(fault.details)).toContain('authorization_expired');
      expect(await prisma.paymentTender.findFirstOrThrow({ where: { orderId: order.id } })).toMatchObject({ status: 'AUTHORIZED' });
      expect(
        (await control.requests()).filter((request) => request.kind === 'capture' && request.errorCode === 'authorization_expired'),
      ).toHaveLength(1);
    } finally {
      await control.setClock(new Date());
    }
    await shop.transaction((tx) => completeOrder(tx, shop.deps, order.id));
    await expect(handle.result()).resolves.toEqual({ status: 'COMPLETED' });
    await shop.saveHistory(handle.workflowId, WORKFLOW_TYPES.orderLifecycle, 'capture-refused');
  });

  it('records capture_without_authorization when a card-paid order is fulfilled with its authorization voided, without calling the gateway to capture', async () => {
    const control = new TestGatewayControl(gateway.url, GATEWAY_KEY);
    const order = await placeWithCard('unauthorized', 'tok_lifecycle_unauthorized');
    const handle = await lifecycle(order.id);
    const { prisma } = shop.commerce.platform.database;
    const tender = await prisma.paymentTender.findFirstOrThrow({ where: { orderId: order.id } });
    // The card's authorization released while the order goes on (as no cancellation does): nothing is left to capture.
    const paying: DomainDeps = {
      ...shop.deps,
      gateway: new HttpPaymentGateway({ baseUrl: gateway.url, credentials: givenCredentials(GATEWAY_KEY) }),
    };
    await shop.commerce.transaction((tx) => releaseTender(tx, paying, tender.id), GATEWAY_TRANSACTION);

    await shop.transaction((tx) => fulfilOrder(tx, shop.deps, order.id));
    await waitFor(
      async () => (await prisma.workflowFault.count({ where: { entityId: order.id.toString() } })) === 1,
      60_000,
      'the capture fault',
    );
    const fault = await prisma.workflowFault.findFirstOrThrow({ where: { entityId: order.id.toString() } });
    expect(fault).toMatchObject({
      workflow: WORKFLOW_TYPES.orderLifecycle,
      workflowId: handle.workflowId,
      entityType: 'order',
      reason: 'capture_without_authorization',
    });
    expect(fault.details).toEqual({ orderNumber: order.number, captured: '0.00', orderTotal: order.total.toFixed(2) });
    expect(
      (await control.requests()).filter((request) => request.authorizationId === tender.gatewayReference).map((request) => request.kind),
    ).toEqual(['void']);

    await shop.transaction((tx) => completeOrder(tx, shop.deps, order.id));
    await expect(handle.result()).resolves.toEqual({ status: 'COMPLETED' });
    await shop.saveHistory(handle.workflowId, WORKFLOW_TYPES.orderLifecycle, 'capture-without-authorization');
  });

  it('records no capture fault for an order staff marked paid, which has no tender', async () => {
    const { order } = await shop.placeOrder({ sku: 'staff-paid', holdMs: 60_000 });
    const handle = await lifecycle(order.id);
    await shop.transaction((tx) => markOrderPaid(tx, shop.deps, order.id));
    await shop.transaction((tx) => fulfilOrder(tx, shop.deps, order.id));
    await waitFor(
      async () => (await handle.query<{ status: string | null }>(QUERIES.state)).status === 'FULFILLED',
      30_000,
      'the fulfilled state',
    );
    await shop.transaction((tx) => completeOrder(tx, shop.deps, order.id));
    await expect(handle.result()).resolves.toEqual({ status: 'COMPLETED' });
    expect(await shop.commerce.platform.database.prisma.workflowFault.count({ where: { entityId: order.id.toString() } })).toBe(0);
  });

  it('a signal to a finished workflow changes nothing and starts nothing', async () => {
    const { order } = await shop.placeOrder({ sku: 'finished', holdMs: 60_000 });
    const handle = await lifecycle(order.id);
    await shop.transaction((tx) => cancelOrder(tx, shop.deps, order.id, 'changed my mind'));
    await expect(handle.result()).resolves.toEqual({ status: 'CANCELLED' });
    await redeliver(placed(order.id, order.number));
    expect(await executionsOf(workflowIds.orderLifecycle(order.id.toString()))).toBe(1);
  });
});

describe('OrderLifecycleWorkflow on the time-skipping test server', () => {
  const timed = timeSkippingShopPerGroup('lifecycle-timers');

  it('cancels an unpaid order once its whole payment window has passed, and releases its stock', async () => {
    const { shop: timedShop } = timed();
    const { order, productId } = await timedShop.placeOrder({ sku: 'unpaid', quantity: 2, onHand: 3, holdMs: PAYMENT_WINDOW_MS });
    expect(await stockOf(productId, timedShop)).toMatchObject({ onHand: 3, reserved: 2 });
    const { expiresAt } = await timedShop.commerce.platform.database.prisma.inventoryReservation.findFirstOrThrow({
      where: { orderId: order.id },
    });
    const handle = await timedShop.started(workflowIds.orderLifecycle(order.id.toString()));
    await expect(handle.result()).resolves.toEqual({ status: 'CANCELLED' });
    // The payment timer fired at the hold's expiry on the server's clock, 30 minutes on (the test would time out waiting for it in real time).
    const { timers, firedAt } = await runTimers(handle);
    expect(timers).toEqual(['fired']);
    expectFiredAt(firedAt[0], expiresAt.getTime());
    await timedShop.saveHistory(handle.workflowId, WORKFLOW_TYPES.orderLifecycle, 'payment-deadline');
    expect(await orderRow(order.id, timedShop)).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'the stock hold expired before payment',
    });
    expect(await stockOf(productId, timedShop)).toMatchObject({ onHand: 3, reserved: 0 });
    expect(await statusChanges(order.id, timedShop)).toEqual([
      { from: null, to: 'PENDING_PAYMENT' },
      { from: 'PENDING_PAYMENT', to: 'CANCELLED' },
    ]);
  });
});
