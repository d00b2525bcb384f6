// GcExpiredCartTendersWorkflow on the real Temporal server, PostgreSQL and the test gateway, asserted on
// the gateway's own logs: a card authorized for a cart whose order never came is voided once its hold
// runs out, once across two runs and a void the gateway committed and then failed; CleanupExpiredCarts
// keeps such a cart until then.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCartLine, createCart } from '@shop/domain/carts';
import { checkout } from '@shop/domain/flows';
import { type DomainDeps } from '@shop/domain/kernel';
import { tenderKeys } from '@shop/domain/tenders';
import { TASK_QUEUE, WORKFLOW_TYPES } from '@shop/domain/workflows';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';
import { openShopGateway, openWorkflowShop, type ShopGateway, type WorkflowShop } from '../support/workflows.ts';

const GATEWAY_KEY = 'cart_tenders_gateway_key';
const MINUTE_MS = 60_000;

let shop: WorkflowShop;
let gateway: ShopGateway;
let control: ShopGateway['control'];
let cards: ShopGateway['cards'];

beforeAll(async () => {
  shop = await openWorkflowShop('cart-tenders');
  gateway = await openShopGateway(shop, GATEWAY_KEY);
  ({ control, cards } = gateway);
  await shop.startWorker({ PAYMENT_GATEWAY_URL: gateway.url });
}, 180_000);

afterAll(async () => {
  await shop?.close();
  await gateway?.close();
});

const prisma = () => shop.commerce.platform.database.prisma;

/**
 * A checkout of 2 units paid by card, `onHand` of the product in stock: with 1, the order's
 * transaction fails after the card was authorized for the cart, which leaves the cart tender.
 */
async function checkoutWithCard(sku: string, onHand: number) {
  const paying: DomainDeps = { ...shop.deps, gateway: cards };
  const productId = await shop.catalog.product(sku, '10.00', onHand);
  const shopper = { sessionId: `s-cart-tender-${sku}` };
  const cart = await shop.transaction(async (tx) => {
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
    idempotencyKey: `cart-tender-${sku}`,
    card: { token: `tok_${sku}` },
  };
  const placed = await checkout(shop.commerce.transaction, paying, input).then(
    (order) => order.id,
    () => null,
  );
  const tender = await prisma().paymentTender.findUniqueOrThrow({
    where: { idempotencyKey: tenderKeys.authorize(cart.id, input.idempotencyKey) },
  });
  return { cartId: cart.id, orderId: placed, tender };
}

const tenderRow = (id: bigint) => prisma().paymentTender.findUniqueOrThrow({ where: { id } });
const cartExists = async (id: bigint) => (await prisma().cart.count({ where: { id } })) === 1;

/** The gateway's own log of the requests on a tender's authorization after the authorization: [key, outcome, refusal]. */
async function gatewayRequests(authorizationId: string) {
  return (await control.requests())
    .filter((request) => request.authorizationId === authorizationId && request.kind !== 'authorize')
    .map((request) => [request.kind, request.idempotencyKey, request.outcome, request.errorCode ?? null]);
}

const voids = async (authorizationId: string) =>
  (await control.operations()).filter((operation) => operation.kind === 'void' && operation.authorizationId === authorizationId);

const run = (workflowType: string, workflowId: string, asOf: Date) =>
  shop.client.workflow.execute(workflowType, { taskQueue: TASK_QUEUE, workflowId, args: [asOf.toISOString()] });

describe('GcExpiredCartTendersWorkflow', () => {
  it('voids each cart tender no order took once its hold ran out, once across two runs and a retried pass, and leaves the others alone', async () => {
    // Held 30 minutes (the default cartTenderIdleMinutes) from now; the first due is the one whose void fails first.
    const retried = await checkoutWithCard('retried', 1);
    const failed = await checkoutWithCard('failed', 1);
    const voidedElsewhere = await checkoutWithCard('voided-elsewhere', 1);
    const capturedElsewhere = await checkoutWithCard('captured-elsewhere', 1);
    const placed = await checkoutWithCard('placed', 5);
    await shop.setSetting('workflows', { cartTenderIdleMinutes: 120 });
    const fresh = await checkoutWithCard('fresh', 1);
    await shop.setSetting('workflows', {});
    expect(failed.orderId).toBeNull();
    expect(failed.tender).toMatchObject({ status: 'AUTHORIZED', orderId: null, cartId: failed.cartId });
    expect(placed.orderId).not.toBeNull();
    expect(placed.tender.orderId).toBe(placed.orderId);
    expect((fresh.tender.holdExpiresAt?.getTime() ?? 0) - (failed.tender.holdExpiresAt?.getTime() ?? 0)).toBeGreaterThan(80 * MINUTE_MS);

    // From the gateway's dashboard, under keys the shop never sent.
    expect(
      await cards.void({ idempotencyKey: 'dashboard:cart-void', authorizationId: voidedElsewhere.tender.gatewayReference }),
    ).toMatchObject({ status: 'approved' });
    const amount = { amountMinor: 1000, currency: 'EUR' };
    expect(
      await cards.capture({ idempotencyKey: 'dashboard:cart-capture', authorizationId: capturedElsewhere.tender.gatewayReference, amount }),
    ).toMatchObject({ status: 'approved' });
    // The void commits at the gateway and answers 500: the pass fails and Temporal retries it with the same key.
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'void', cardToken: 'tok_retried' });

    const asOf = new Date(Date.now() + 31 * MINUTE_MS);
    // Carts past their expiry (asOf a year on): the cleanup keeps those whose tender is still live.
    const yearOn = new Date(Date.now() + 366 * 24 * 60 * MINUTE_MS);
    await run(WORKFLOW_TYPES.cleanupExpiredCarts, 'cleanup-expired-carts-before', yearOn);
    expect(await cartExists(failed.cartId)).toBe(true);
    expect(await cartExists(fresh.cartId)).toBe(true);

    await expect(run(WORKFLOW_TYPES.gcExpiredCartTenders, 'gc-expired-cart-tenders-first', asOf)).resolves.toEqual({
      passes: 1,
      processed: 3,
    });
    await expect(run(WORKFLOW_TYPES.gcExpiredCartTenders, 'gc-expired-cart-tenders-second', asOf)).resolves.toEqual({
      passes: 1,
      processed: 0,
    });

    for (const voided of [failed, retried, voidedElsewhere]) {
      expect(await tenderRow(voided.tender.id)).toMatchObject({ status: 'VOIDED', orderId: null });
      expect(await voids(voided.tender.gatewayReference)).toHaveLength(1);
    }
    const key = (tender: { id: bigint }) => tenderKeys.void(tender.id);
    expect(await gatewayRequests(failed.tender.gatewayReference)).toEqual([['void', key(failed.tender), 'executed', null]]);
    expect(await gatewayRequests(retried.tender.gatewayReference)).toEqual([
      ['void', key(retried.tender), 'executed', null],
      ['void', key(retried.tender), 'replayed', null],
    ]);
    // Already voided at the gateway counts as done.
    expect(await gatewayRequests(voidedElsewhere.tender.gatewayReference)).toEqual([
      ['void', 'dashboard:cart-void', 'executed', null],
      ['void', key(voidedElsewhere.tender), 'refused', 'authorization_voided'],
    ]);
    const events = await prisma().tenderEvent.findMany({ where: { tenderId: failed.tender.id }, orderBy: { id: 'asc' } });
    expect(events.map((event) => [event.kind, event.amount.toFixed(2), event.idempotencyKey])).toEqual([
      ['AUTHORIZED', '20.00', failed.tender.idempotencyKey],
      ['VOIDED', '20.00', key(failed.tender)],
    ]);

    // Refused for good: a fault, the tender left AUTHORIZED, tried once.
    expect(await tenderRow(capturedElsewhere.tender.id)).toMatchObject({ status: 'AUTHORIZED' });
    expect((await gatewayRequests(capturedElsewhere.tender.gatewayReference)).filter(([kind]) => kind === 'void')).toEqual([
      ['void', key(capturedElsewhere.tender), 'refused', 'authorization_captured'],
    ]);
    const faults = await prisma().workflowFault.findMany({ where: { workflow: WORKFLOW_TYPES.gcExpiredCartTenders } });
    expect(faults).toMatchObject([
      {
        workflowId: 'gc-expired-cart-tenders-first',
        entityType: 'tender',
        entityId: capturedElsewhere.tender.id.toString(),
        reason: 'void_refused',
      },
    ]);

    // Taken by its order, or held longer: not touched.
    expect(await gatewayRequests(placed.tender.gatewayReference)).toEqual([]);
    expect(await tenderRow(placed.tender.id)).toMatchObject({ status: 'AUTHORIZED', orderId: placed.orderId });
    expect(await gatewayRequests(fresh.tender.gatewayReference)).toEqual([]);
    expect(await tenderRow(fresh.tender.id)).toMatchObject({ status: 'AUTHORIZED', orderId: null });

    // Voided, the cart goes with the next cleanup; the live tenders' carts stay.
    await run(WORKFLOW_TYPES.cleanupExpiredCarts, 'cleanup-expired-carts-after', yearOn);
    expect(await cartExists(failed.cartId)).toBe(false);
    expect(await cartExists(fresh.cartId)).toBe(true);
    expect(await cartExists(capturedElsewhere.cartId)).toBe(true);

    await shop.saveHistory('gc-expired-cart-tenders-first', WORKFLOW_TYPES.gcExpiredCartTenders, 'voided');
  });
});
