// RefundExecutionWorkflow on the real Temporal server, PostgreSQL and the test gateway, each case
// asserted on the gateway's own log: a refund the gateway committed and answered 500, or whose worker
// was SIGKILLed mid-call, is one refund there; a pending refund is polled until it settles; a refusal
// ends NEEDS_ATTENTION for staff to retry or send to store credit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayOperation } from '@shop/platform';
import { addCartLine, createCart } from '@shop/domain/carts';
import { checkout, REFUND_EXCEEDS_CAPTURED } from '@shop/domain/flows';
import { type DomainDeps } from '@shop/domain/kernel';
import { fulfilOrder } from '@shop/domain/orders';
import { refundKeys, refundToStoreCredit, requestRefund, retryRefund, type RefundRequestView } from '@shop/domain/refunds';
import { issueStoreCredit, storeCreditBalance } from '@shop/domain/store-credit';
import { captureOrderTenders, GATEWAY_TRANSACTION } from '@shop/domain/tenders';
import { WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';
import { eventually, waitFor } from '../support/wait.ts';
import { openShopGateway, openWorkflowShop, type RunningWorker, type ShopGateway, type WorkflowShop } from '../support/workflows.ts';

const GATEWAY_KEY = 'refunds_gateway_key';
const DAY_MS = 24 * 60 * 60 * 1000;

let shop: WorkflowShop;
let gateway: ShopGateway;
let control: ShopGateway['control'];
let cards: ShopGateway['cards'];
let paying: DomainDeps;
let staffUserId: bigint;
let worker: RunningWorker;

const startWorker = () => shop.startWorker({ PAYMENT_GATEWAY_URL: gateway.url });

beforeAll(async () => {
  shop = await openWorkflowShop('refunds');
  gateway = await openShopGateway(shop, GATEWAY_KEY);
  ({ control, cards } = gateway);
  paying = { ...shop.deps, gateway: cards };
  // A pending refund is looked up again every 2 seconds or so.
  await shop.setSetting('workflows', { pendingRefundPollHours: 0.0006 });
  staffUserId = (
    await prisma().staffUser.create({ data: { email: 'refunds@example.com', passwordHash: 'scrypt$unused', name: 'Refunder' } })
  ).id;
  worker = await startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
  await gateway?.close();
});

const prisma = () => shop.commerce.platform.database.prisma;

interface PaidOrder {
  readonly orderId: bigint;
  readonly customerId: bigint;
  readonly card: { readonly id: bigint; readonly captured: string; readonly authorizationId: string };
}

/** A customer's order of 2 × 10.00 paid with `credit` of store credit (if any) and a card (token `tok_<sku>`) for the rest, fulfilled and captured. */
async function paidOrder(sku: string, credit?: string): Promise<PaidOrder> {
  const productId = await shop.catalog.product(sku, '10.00', 5);
  const customer = await prisma().customer.create({
    data: { channelId: shop.catalog.channelId, email: `${sku}@example.com`, passwordHash: 'scrypt$unused' },
  });
  const shopper = { customerId: customer.id };
  const cartId = await shop.commerce.transaction(async (tx) => {
    if (credit !== undefined)
      await issueStoreCredit(tx, paying, {
        customerId: customer.id,
        currency: 'EUR',
        amount: credit,
        note: 'goodwill',
        idempotencyKey: `issue:${sku}`,
      });
    const cart = await createCart(tx, paying, { channelId: shop.catalog.channelId, shopper });
    await addCartLine(tx, paying, { cartId: cart.id, shopper, productId, quantity: 2 });
    return cart.id;
  });
  const input = {
    cartId,
    shopper,
    email: `${sku}@example.com`,
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    idempotencyKey: `refund-${sku}`,
    useStoreCredit: credit !== undefined,
    card: { token: `tok_${sku}` },
  };
  const order = await checkout(shop.commerce.transaction, paying, input);
  await shop.commerce.transaction(async (tx) => {
    await fulfilOrder(tx, paying, order.id);
    await captureOrderTenders(tx, paying, order.id);
  }, GATEWAY_TRANSACTION);
  const card = await prisma().paymentTender.findFirstOrThrow({ where: { orderId: order.id, kind: 'CARD' } });
  return {
    orderId: order.id,
    customerId: customer.id,
    card: { id: card.id, captured: card.capturedAmount.toFixed(2), authorizationId: card.gatewayReference },
  };
}

const refund = (orderId: bigint, amount: string, idempotencyKey: string): Promise<RefundRequestView> =>
  shop.transaction((tx) =>
    requestRefund(tx, shop.deps, { orderId, amount, reason: 'returned', idempotencyKey, source: { kind: 'STAFF', staffUserId } }),
  );

/** The request's workflow, once the outbox started it, run to its end. */
async function executed(request: RefundRequestView): Promise<{ status: string }> {
  return (await shop.started(workflowIds.refundExecution(request.id))).result();
}

const refundsAt = async (authorizationId: string): Promise<GatewayOperation[]> =>
  (await control.operations()).filter((operation) => operation.kind === 'refund' && operation.authorizationId === authorizationId);

const refundRequestsAt = async (authorizationId: string) =>
  (await control.requests())
    .filter((request) => request.kind === 'refund' && request.authorizationId === authorizationId)
    .map((request) => [request.idempotencyKey, request.outcome]);

const refundRows = (requestId: string) =>
  prisma().refund.findMany({ where: { refundRequestId: BigInt(requestId) }, orderBy: { id: 'asc' } });
const requestStatus = async (requestId: string) =>
  (await prisma().refundRequest.findUniqueOrThrow({ where: { id: BigInt(requestId) } })).status;
const tender = (id: bigint) => prisma().paymentTender.findUniqueOrThrow({ where: { id } });

describe('RefundExecutionWorkflow', () => {
  it('refunds store credit first and the card for the rest, once at the gateway although it committed and answered 500', async () => {
    const order = await paidOrder('split', '5.00');
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'refund', cardToken: 'tok_split' });
    const request = await refund(order.orderId, '15.00', 'refund-split');

    await expect(executed(request)).resolves.toEqual({ status: 'SUCCEEDED' });

    const [credit, card] = await refundRows(request.id);
    expect(credit).toMatchObject({ status: 'SUCCEEDED', destination: 'ORIGINAL' });
    expect(credit?.amount.toFixed(2)).toBe('5.00');
    expect(card).toMatchObject({ status: 'SUCCEEDED', tenderId: order.card.id });
    expect(card?.amount.toFixed(2)).toBe('10.00');
    const key = refundKeys.gateway(card?.id ?? 0n, 1);
    expect(await refundRequestsAt(order.card.authorizationId)).toEqual([
      [key, 'executed'],
      [key, 'replayed'],
    ]);
    expect(
      (await refundsAt(order.card.authorizationId)).map((operation) => [operation.idempotencyKey, operation.amount.amountMinor]),
    ).toEqual([[key, 1000]]);
    expect((await tender(order.card.id)).refundedAmount.toFixed(2)).toBe('10.00');
    expect(
      await prisma().tenderEvent.findMany({ where: { tenderId: order.card.id, kind: 'REFUNDED' }, select: { idempotencyKey: true } }),
    ).toEqual([{ idempotencyKey: key }]);
    const account = await prisma().storeCreditAccount.findFirstOrThrow({ where: { customerId: order.customerId } });
    expect((await storeCreditBalance(prisma(), account.id)).toFixed(2)).toBe('5.00');
    const completed = await prisma().outboxEvent.findMany({
      where: { name: 'shop.payments.refund_completed.v1', payload: { path: ['refund_request_id'], equals: request.id } },
    });
    expect(completed.map((event) => (event.payload as { tender_kind: string }).tender_kind).sort()).toEqual(['CARD', 'STORE_CREDIT']);

    await shop.saveHistory(workflowIds.refundExecution(request.id), WORKFLOW_TYPES.refundExecution, 'succeeded');
  });

  it('lets two concurrent requests on one card take no more than it captured, at the gateway too', async () => {
    const order = await paidOrder('concurrent');
    expect(order.card.captured).toBe('20.00');
    const outcomes = await Promise.allSettled([
      refund(order.orderId, '15.00', 'refund-concurrent-a'),
      refund(order.orderId, '15.00', 'refund-concurrent-b'),
    ]);

    const granted = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(granted).toHaveLength(1);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({
      reason: { code: 'BAD_USER_INPUT', details: { field: 'amount' } },
    });
    await expect(executed(granted[0] as RefundRequestView)).resolves.toEqual({ status: 'SUCCEEDED' });
    expect((await refundsAt(order.card.authorizationId)).map((operation) => operation.amount.amountMinor)).toEqual([1500]);
  });

  it('ends NEEDS_ATTENTION on a declined refund; staff retry it under a new key, or send it to store credit', async () => {
    const order = await paidOrder('declined');
    await control.addFault({ fault: { kind: 'decline' }, operation: 'refund', cardToken: 'tok_declined', times: 2 });
    const first = await refund(order.orderId, '4.00', 'refund-declined-1');
    await expect(executed(first)).resolves.toEqual({ status: 'NEEDS_ATTENTION' });
    const [failed] = await refundRows(first.id);
    expect(failed).toMatchObject({ status: 'FAILED', attempt: 1, lastError: 'card_declined: the gateway declined the refund' });
    await shop.saveHistory(workflowIds.refundExecution(first.id), WORKFLOW_TYPES.refundExecution, 'needs-attention');

    // A retry is a new attempt under its own key (the gateway keeps the decline under the first), run by a new run of refund-<id>.
    await shop.transaction((tx) => retryRefund(tx, shop.deps, failed?.id ?? 0n));
    await waitFor(async () => (await requestStatus(first.id)) !== 'REQUESTED', 60_000, 'the retried refund');
    expect(await requestStatus(first.id)).toBe('NEEDS_ATTENTION');
    const second = await refund(order.orderId, '3.00', 'refund-declined-2');
    await expect(executed(second)).resolves.toEqual({ status: 'SUCCEEDED' });
    const retried = await shop.transaction((tx) => retryRefund(tx, shop.deps, failed?.id ?? 0n));
    expect(retried.refunds[0]).toMatchObject({ status: 'REQUESTED', attempt: 3 });
    await waitFor(async () => (await requestStatus(first.id)) === 'SUCCEEDED', 60_000, 'the third attempt');
    const firstKey = refundKeys.gateway(failed?.id ?? 0n, 1);
    expect((await refundsAt(order.card.authorizationId)).map((operation) => [operation.idempotencyKey, operation.status])).toEqual([
      [firstKey, 'declined'],
      [refundKeys.gateway(failed?.id ?? 0n, 2), 'declined'],
      [refundKeys.gateway((await refundRows(second.id))[0]?.id ?? 0n, 1), 'approved'],
      [refundKeys.gateway(failed?.id ?? 0n, 3), 'approved'],
    ]);
    expect((await tender(order.card.id)).refundedAmount.toFixed(2)).toBe('7.00');

    // Declined again: this time staff give it to the customer's store credit.
    await control.addFault({ fault: { kind: 'decline' }, operation: 'refund', cardToken: 'tok_declined' });
    const third = await refund(order.orderId, '2.50', 'refund-declined-3');
    await expect(executed(third)).resolves.toEqual({ status: 'NEEDS_ATTENTION' });
    const [declined] = await refundRows(third.id);
    const moved = await shop.transaction((tx) => refundToStoreCredit(tx, shop.deps, declined?.id ?? 0n));
    expect(moved.refunds.map((row) => [row.destination, row.status, row.amount])).toEqual([
      ['ORIGINAL', 'CANCELED', '2.50'],
      ['STORE_CREDIT', 'REQUESTED', '2.50'],
    ]);
    await waitFor(async () => (await requestStatus(third.id)) === 'SUCCEEDED', 60_000, 'the refund to store credit');
    const account = await prisma().storeCreditAccount.findFirstOrThrow({ where: { customerId: order.customerId } });
    expect((await storeCreditBalance(prisma(), account.id)).toFixed(2)).toBe('2.50');
    expect((await tender(order.card.id)).refundedAmount.toFixed(2)).toBe('9.50');
    expect(await refundsAt(order.card.authorizationId)).toHaveLength(5);
  });

  it('records a fault when the gateway refuses a refund as more than was captured', async () => {
    const order = await paidOrder('exceeds');
    // Refunded from the gateway's dashboard, under a key the shop never sent: the shop's books still say all of it is refundable.
    const captured = Math.round(Number(order.card.captured) * 100);
    const amount = { amountMinor: captured - 100, currency: 'EUR' };
    expect(await cards.refund({ idempotencyKey: 'dashboard:refund', authorizationId: order.card.authorizationId, amount })).toMatchObject({
      status: 'approved',
    });
    const request = await refund(order.orderId, '5.00', 'refund-exceeds');

    await expect(executed(request)).resolves.toEqual({ status: 'NEEDS_ATTENTION' });
    const [refused] = await refundRows(request.id);
    expect(refused?.lastError).toMatch(/^amount_exceeds_captured: /);
    const faults = await prisma().workflowFault.findMany({ where: { reason: REFUND_EXCEEDS_CAPTURED } });
    expect(faults).toMatchObject([
      {
        workflow: WORKFLOW_TYPES.refundExecution,
        workflowId: workflowIds.refundExecution(request.id),
        entityType: 'refund',
        entityId: refused?.id.toString(),
      },
    ]);
    expect((await refundsAt(order.card.authorizationId)).map((operation) => operation.idempotencyKey)).toEqual(['dashboard:refund']);
  });

  it('polls a pending refund until it settles at the gateway', async () => {
    const order = await paidOrder('pending');
    await control.addFault({ fault: { kind: 'refund_pending', days: 3 }, operation: 'refund', cardToken: 'tok_pending' });
    const request = await refund(order.orderId, '6.00', 'refund-pending');
    const handle = await shop.started(workflowIds.refundExecution(request.id));
    await waitFor(async () => (await refundRows(request.id))[0]?.status === 'PENDING', 60_000, 'the refund to be pending');
    const [pending] = await refundRows(request.id);
    expect(pending?.settlesAt?.getTime()).toBeGreaterThan(Date.now() + 2 * DAY_MS);
    // The row turns PENDING inside the activity: the workflow knows once the activity's answer reached it, and then waits to look again.
    await eventually(async () => expect(await handle.query('state')).toMatchObject({ status: 'REQUESTED', deadline: expect.any(String) }), {
      timeoutMs: 30_000,
    });
    expect((await tender(order.card.id)).refundedAmount.toFixed(2)).toBe('0.00');

    await control.setClock(new Date(Date.now() + 3 * DAY_MS + 60_000));
    try {
      await expect(handle.result()).resolves.toEqual({ status: 'SUCCEEDED' });
      // The log shows operations as they stand on the gateway's clock: read it before the clock goes back.
      expect((await refundsAt(order.card.authorizationId)).map((operation) => [operation.status, operation.amount.amountMinor])).toEqual([
        ['approved', 600],
      ]);
    } finally {
      await control.setClock(new Date());
    }
    expect(await refundRows(request.id)).toMatchObject([{ status: 'SUCCEEDED', gatewayRefundId: pending?.gatewayRefundId }]);
    expect((await tender(order.card.id)).refundedAmount.toFixed(2)).toBe('6.00');
    expect(await prisma().tenderEvent.count({ where: { tenderId: order.card.id, kind: 'REFUNDED' } })).toBe(1);
    await shop.saveHistory(workflowIds.refundExecution(request.id), WORKFLOW_TYPES.refundExecution, 'pending-settled');
  });

  it('refunds once when the worker is SIGKILLed while the gateway holds the committed refund', async () => {
    const order = await paidOrder('killed');
    await control.addFault({ fault: { kind: 'commit_then_timeout' }, operation: 'refund', cardToken: 'tok_killed' });
    const request = await refund(order.orderId, '8.00', 'refund-killed');
    await waitFor(async () => (await refundsAt(order.card.authorizationId)).length === 1, 60_000, 'the gateway to commit the refund');
    worker.process.child.kill('SIGKILL');
    await worker.process.exited();
    expect(await requestStatus(request.id)).toBe('REQUESTED');
    worker = await startWorker();

    await expect(executed(request)).resolves.toEqual({ status: 'SUCCEEDED' });
    const key = refundKeys.gateway((await refundRows(request.id))[0]?.id ?? 0n, 1);
    expect(await refundRequestsAt(order.card.authorizationId)).toEqual([
      [key, 'executed'],
      [key, 'replayed'],
    ]);
    expect(await refundsAt(order.card.authorizationId)).toHaveLength(1);
    expect((await tender(order.card.id)).refundedAmount.toFixed(2)).toBe('8.00');
  }, 120_000);
});
