// VoidExpiringCardAuthsWorkflow on the real Temporal server, PostgreSQL and the test gateway, asserted
// on the gateway's own logs: what lapses within the margin is voided once, the rest is left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCartLine, createCart } from '@shop/domain/carts';
import { cancelOrder, checkout } from '@shop/domain/flows';
import { type DomainDeps } from '@shop/domain/kernel';
import { fulfilOrder } from '@shop/domain/orders';
import { GATEWAY_TRANSACTION, tenderKeys } from '@shop/domain/tenders';
import { TASK_QUEUE, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';
import { waitFor } from '../support/wait.ts';
import { openShopGateway, openWorkflowShop, type ShopGateway, type WorkflowShop } from '../support/workflows.ts';

const GATEWAY_KEY = 'void_auths_gateway_key';
const DAY_MS = 24 * 60 * 60 * 1000;

let shop: WorkflowShop;
let gateway: ShopGateway;
let control: ShopGateway['control'];
let cards: ShopGateway['cards'];

beforeAll(async () => {
  shop = await openWorkflowShop('void-auths');
  gateway = await openShopGateway(shop, GATEWAY_KEY);
  ({ control, cards } = gateway);
  await shop.startWorker({ PAYMENT_GATEWAY_URL: gateway.url });
}, 180_000);

afterAll(async () => {
  await shop?.close();
  await gateway?.close();
});

const prisma = () => shop.commerce.platform.database.prisma;
const tenderOf = (orderId: bigint) => prisma().paymentTender.findFirstOrThrow({ where: { orderId } });
const orderRow = (id: bigint) => prisma().order.findUniqueOrThrow({ where: { id } });

/** An order of 2 units of a new product paid by card at checkout (PLACED), authorized at the gateway's current time. */
async function placeWithCard(sku: string) {
  const paying: DomainDeps = { ...shop.deps, gateway: cards };
  const productId = await shop.catalog.product(sku, '10.00', 5);
  const shopper = { sessionId: `s-void-${sku}` };
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
    idempotencyKey: `void-${sku}`,
    card: { token: `tok_${sku}` },
  };
  const order = await checkout(shop.commerce.transaction, paying, input);
  return { order, tender: await tenderOf(order.id) };
}

async function gatewayRequests(authorizationId: string) {
  return (await control.requests()).filter((request) => request.authorizationId === authorizationId && request.kind !== 'authorize');
}

const voids = async (authorizationId: string) =>
  (await control.operations()).filter((operation) => operation.kind === 'void' && operation.authorizationId === authorizationId);

const sweep = (workflowId: string) =>
  shop.client.workflow.execute(WORKFLOW_TYPES.voidExpiringCardAuths, { taskQueue: TASK_QUEUE, workflowId, args: [] });

describe('VoidExpiringCardAuthsWorkflow', () => {
  it('voids each authorization lapsing within the margin once, across two runs, a retried pass and a failed cancel, and leaves the others alone', async () => {
    // Authorized six days ago at the gateway: these lapse in a day, within the 48 hours' margin.
    await control.setClock(new Date(Date.now() - 6 * DAY_MS));
    const inside = await placeWithCard('inside');
    const captured = await placeWithCard('captured');
    const voidedElsewhere = await placeWithCard('voided-elsewhere');
    const capturedElsewhere = await placeWithCard('captured-elsewhere');
    const cancelFailed = await placeWithCard('cancel-failed');
    await control.setClock(new Date());
    const outside = await placeWithCard('outside');
    expect((inside.tender.authorizationExpiresAt?.getTime() ?? Number.NaN) - Date.now()).toBeLessThan(2 * DAY_MS);
    expect((outside.tender.authorizationExpiresAt?.getTime() ?? Number.NaN) - Date.now()).toBeGreaterThan(2 * DAY_MS);

    // Fulfilled: its lifecycle captures the tender, which the sweep must then never void.
    await shop.started(workflowIds.orderLifecycle(captured.order.id.toString()));
    await shop.transaction((tx) => fulfilOrder(tx, shop.deps, captured.order.id));
    await waitFor(async () => (await tenderOf(captured.order.id)).status === 'CAPTURED', 60_000, 'the capture');
    // From the gateway's dashboard, under keys the shop never sent.
    expect(await cards.void({ idempotencyKey: 'dashboard:void', authorizationId: voidedElsewhere.tender.gatewayReference })).toMatchObject({
      status: 'approved',
    });
    const amount = { amountMinor: 2000, currency: capturedElsewhere.order.currency };
    expect(
      await cards.capture({ idempotencyKey: 'dashboard:capture', authorizationId: capturedElsewhere.tender.gatewayReference, amount }),
    ).toMatchObject({ status: 'approved' });
    // A cancellation whose void committed at the gateway and answered 500: rolled back, the order still PLACED.
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'void', cardToken: 'tok_cancel-failed' });
    await expect(
      shop.commerce.transaction(
        (tx) => cancelOrder(tx, { ...shop.deps, gateway: cards }, cancelFailed.order.id, 'changed my mind'),
        GATEWAY_TRANSACTION,
      ),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(await orderRow(cancelFailed.order.id)).toMatchObject({ status: 'PLACED' });
    // The first void commits at the gateway and answers 500: the pass fails and Temporal retries it.
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'void', cardToken: 'tok_inside' });
    const lifecycle = await shop.started(workflowIds.orderLifecycle(inside.order.id.toString()));

    await expect(sweep('void-expiring-card-auths-first')).resolves.toEqual({ passes: 1, processed: 3 });
    await expect(sweep('void-expiring-card-auths-second')).resolves.toEqual({ passes: 1, processed: 0 });

    const insideKey = tenderKeys.void(inside.tender.id);
    expect((await gatewayRequests(inside.tender.gatewayReference)).map((request) => [request.idempotencyKey, request.outcome])).toEqual([
      [insideKey, 'executed'],
      [insideKey, 'replayed'],
    ]);
    expect(await voids(inside.tender.gatewayReference)).toHaveLength(1);
    expect(await tenderOf(inside.order.id)).toMatchObject({ status: 'VOIDED' });
    expect((await tenderOf(inside.order.id)).voidedAmount.toFixed(2)).toBe(inside.order.total.toFixed(2));
    expect(await orderRow(inside.order.id)).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'the card authorization was about to expire and was voided',
    });
    // The cancellation's order.status_changed tells the order's lifecycle, which ends.
    await expect(lifecycle.result()).resolves.toEqual({ status: 'CANCELLED' });

    // The sweep sends the cancellation's key: the gateway replays the void it committed for the cancel.
    const cancelKey = tenderKeys.void(cancelFailed.tender.id);
    expect(
      (await gatewayRequests(cancelFailed.tender.gatewayReference)).map((request) => [request.idempotencyKey, request.outcome]),
    ).toEqual([
      [cancelKey, 'executed'],
      [cancelKey, 'replayed'],
    ]);
    expect(await voids(cancelFailed.tender.gatewayReference)).toHaveLength(1);
    expect(await orderRow(cancelFailed.order.id)).toMatchObject({ status: 'CANCELLED' });

    expect(await gatewayRequests(outside.tender.gatewayReference)).toEqual([]);
    expect(await tenderOf(outside.order.id)).toMatchObject({ status: 'AUTHORIZED' });
    expect(await orderRow(outside.order.id)).toMatchObject({ status: 'PLACED' });

    expect((await gatewayRequests(captured.tender.gatewayReference)).map((request) => request.kind)).toEqual(['capture']);
    expect(await voids(captured.tender.gatewayReference)).toEqual([]);

    // Already voided at the gateway counts as done: one void there, the tender and the order follow.
    const elsewhereKey = tenderKeys.void(voidedElsewhere.tender.id);
    expect(
      (await gatewayRequests(voidedElsewhere.tender.gatewayReference)).map((request) => [
        request.idempotencyKey,
        request.outcome,
        request.errorCode ?? null,
      ]),
    ).toEqual([
      ['dashboard:void', 'executed', null],
      [elsewhereKey, 'refused', 'authorization_voided'],
    ]);
    expect(await voids(voidedElsewhere.tender.gatewayReference)).toHaveLength(1);
    expect(await tenderOf(voidedElsewhere.order.id)).toMatchObject({ status: 'VOIDED' });
    expect(await orderRow(voidedElsewhere.order.id)).toMatchObject({ status: 'CANCELLED' });

    // Refused for good: a fault, the tender left AUTHORIZED for staff, and no second try.
    const refusedKey = tenderKeys.void(capturedElsewhere.tender.id);
    expect(
      (await gatewayRequests(capturedElsewhere.tender.gatewayReference))
        .filter((request) => request.idempotencyKey === refusedKey)
        .map((request) => request.errorCode),
    ).toEqual(['authorization_captured']);
    expect(await tenderOf(capturedElsewhere.order.id)).toMatchObject({ status: 'AUTHORIZED' });
    expect(await orderRow(capturedElsewhere.order.id)).toMatchObject({ status: 'PLACED' });
    const faults = await prisma().workflowFault.findMany({ where: { reason: 'void_refused' } });
    expect(faults).toMatchObject([
      {
        workflow: WORKFLOW_TYPES.voidExpiringCardAuths,
        workflowId: 'void-expiring-card-auths-first',
        entityType: 'tender',
        entityId: capturedElsewhere.tender.id.toString(),
      },
    ]);
    expect(JSON.stringify(faults[0]?.details)).toContain('authorization_captured');

    await shop.saveHistory('void-expiring-card-auths-first', WORKFLOW_TYPES.voidExpiringCardAuths, 'voided');
  });
});
