import { Registry } from 'prom-client';
import { workflowMetrics } from '@shop/platform';
// Running refunds against real PostgreSQL and the test gateway, below the workflow: staff's actions on
// a failed refund, the shop's own guard against refunding more than a tender captured, and the fault
// recorded once per run. The workflow around them: test/workflows/refund-execution.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGatewayControl } from '../../../../tools/test-gateway/src/index.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { DomainError } from '../../src/kernel/domain-error.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { checkout } from '../../src/flows/checkout.ts';
import { fulfilOrder } from '../../src/orders/order-transitions.ts';
import { executeRefund, refundKeys } from '../../src/refunds/refund-execution.ts';
import { refundToStoreCredit, requestRefund, retryRefund } from '../../src/refunds/refund-requests.ts';
import { captureOrderTenders } from '../../src/tenders/tenders.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, type Catalog, type Commerce } from '../support/commerce.ts';
import { REFUND_EXCEEDS_CAPTURED, runRefundRequest } from '../../src/flows/refund-execution.ts';

const metrics = workflowMetrics(new Registry());

let shop: GatewayCommerce;
let commerce: Commerce;
let catalog: Catalog;
let control: TestGatewayControl;
let deps: DomainDeps;
let inGatewayTransaction: GatewayCommerce['inGatewayTransaction'];
let staffUserId: bigint;

beforeAll(async () => {
  shop = await openGatewayCommerce('refund_execution', 're');
  ({ commerce, catalog, control, deps, inGatewayTransaction } = shop);
  staffUserId = (
    await commerce.platform.database.prisma.staffUser.create({
      data: { email: 'executes@example.com', passwordHash: 'scrypt$unused', name: 'Executor' },
    })
  ).id;
});

afterAll(async () => {
  await shop?.close();
});

const prisma = () => commerce.platform.database.prisma;

/** A guest's order of 2 × 19.90 paid by card (token `tok_<name>`), fulfilled and captured; answers the order and its card tender. */
async function guestOrder(name: string): Promise<{ orderId: bigint; tenderId: bigint }> {
  const productId = await catalog.product(name, '19.90', 10);
  const shopper = { sessionId: `s-${name}` };
  const cartId = await commerce.transaction(async (tx) => {
    const cart = await createCart(tx, deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, deps, { cartId: cart.id, shopper, productId, quantity: 2 });
    return cart.id;
  });
  const order = await checkout(commerce.transaction, deps, {
    cartId,
    shopper,
    email: 'guest@example.com',
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    idempotencyKey: `order:${name}`,
    card: { token: `tok_${name}` },
  });
  await inGatewayTransaction(async (tx) => {
    await fulfilOrder(tx, deps, order.id);
    await captureOrderTenders(tx, deps, order.id);
  });
  const tender = await prisma().paymentTender.findFirstOrThrow({ where: { orderId: order.id } });
  return { orderId: order.id, tenderId: tender.id };
}

async function requested(orderId: bigint, amount: string, idempotencyKey: string): Promise<bigint> {
  const request = await commerce.transaction((tx) =>
    requestRefund(tx, deps, { orderId, amount, reason: 'returned', idempotencyKey, source: { kind: 'STAFF', staffUserId } }),
  );
  return BigInt(request.refunds[0]?.id ?? '0');
}

const execute = (refundId: bigint) => inGatewayTransaction((tx) => executeRefund(tx, deps, refundId));
const refundsSent = async (idempotencyKey: string) =>
  (await control.requests()).filter((request) => request.kind === 'refund' && request.idempotencyKey === idempotencyKey);

describe('executing refunds', () => {
  it("retries a declined refund under a new key, and refuses to send a guest's refund to store credit", async () => {
    const { orderId, tenderId } = await guestOrder('guest-declined');
    await control.addFault({ fault: { kind: 'decline' }, operation: 'refund', cardToken: 'tok_guest-declined' });
    const refundId = await requested(orderId, '10.00', 'exec-guest-1');

    expect(await execute(refundId)).toMatchObject({ refundId: refundId.toString(), code: 'card_declined' });
    expect(await prisma().refundRequest.findFirstOrThrow({ where: { orderId } })).toMatchObject({ status: 'NEEDS_ATTENTION' });
    const refused = await commerce.transaction((tx) => refundToStoreCredit(tx, deps, refundId)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'refundId' } });

    await commerce.transaction((tx) => retryRefund(tx, deps, refundId));
    expect(await execute(refundId)).toBeNull();
    expect(await execute(refundId)).toBeNull();
    expect(await prisma().refund.findUniqueOrThrow({ where: { id: refundId } })).toMatchObject({
      status: 'SUCCEEDED',
      attempt: 2,
      lastError: null,
    });
    expect((await refundsSent(refundKeys.gateway(refundId, 1))).map((request) => request.outcome)).toEqual(['executed']);
    expect((await refundsSent(refundKeys.gateway(refundId, 2))).map((request) => request.outcome)).toEqual(['executed']);
    expect(await prisma().paymentTender.findUniqueOrThrow({ where: { id: tenderId } })).toMatchObject({ status: 'CAPTURED' });
    expect(await prisma().refundRequest.findFirstOrThrow({ where: { orderId } })).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('refuses, without calling the gateway, a refund beyond what the tender still holds, and records the fault once per run', async () => {
    const { orderId, tenderId } = await guestOrder('guarded');
    const refundId = await requested(orderId, '30.00', 'exec-guarded-1');
    // Refunded behind the shop's back, in SQL: only 9.80 of the capture is left on the tender.
    await prisma().$executeRaw`UPDATE payment_tenders SET refunded_amount = 30.00 WHERE id = ${tenderId}`;
    const requestId = (await prisma().refund.findUniqueOrThrow({ where: { id: refundId } })).refundRequestId;
    const run = { workflow: 'RefundExecutionWorkflow', workflowId: `refund-${requestId}`, runId: 'run-1' };

    const progress = await runRefundRequest({ transaction: commerce.transaction, deps, metrics }, { requestId, run });
    expect(progress).toMatchObject({ status: 'NEEDS_ATTENTION', pending: 0, faults: 1, failed: [{ code: 'amount_exceeds_captured' }] });
    expect(await runRefundRequest({ transaction: commerce.transaction, deps, metrics }, { requestId, run })).toMatchObject({
      status: 'NEEDS_ATTENTION',
      failed: [],
      faults: 0,
    });
    const counted = (await metrics.faults.get()).values.filter((value) => value.labels.reason === REFUND_EXCEEDS_CAPTURED);
    expect(counted).toMatchObject([{ value: 1, labels: { workflow: 'RefundExecutionWorkflow' } }]);
    expect(await refundsSent(refundKeys.gateway(refundId, 1))).toEqual([]);
    expect(
      await prisma().workflowFault.findMany({ where: { reason: REFUND_EXCEEDS_CAPTURED, entityId: refundId.toString() } }),
    ).toMatchObject([{ workflowId: `refund-${requestId}`, runId: 'run-1' }]);
    // The books back as they were: the file's money audit (support.ts close) checks them.
    await prisma().$executeRaw`UPDATE payment_tenders SET refunded_amount = 0 WHERE id = ${tenderId}`;
  });
});
