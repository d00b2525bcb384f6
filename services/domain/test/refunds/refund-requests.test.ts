// Refund requests against real PostgreSQL: the split across an order's tenders (gift cards and store
// credit first, then cards), the caller's key, and concurrent requests that together never ask more
// than was captured. Executing the refunds is RefundExecutionWorkflow's (test/workflows/refund-execution.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainDeps } from '../../src/kernel/context.ts';
import type { DomainError } from '../../src/kernel/domain-error.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { checkout } from '../../src/flows/checkout.ts';
import { fulfilOrder } from '../../src/orders/order-transitions.ts';
import { requestRefund, retryRefund, type RefundSource, type RequestRefundInput } from '../../src/refunds/refund-requests.ts';
import { issueStoreCredit } from '../../src/store-credit/store-credit.ts';
import { createReturnDraft } from '../../src/returns/returns.ts';
import { captureOrderTenders } from '../../src/tenders/tenders.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, refusal, type Catalog, type Commerce } from '../support/commerce.ts';

let shop: GatewayCommerce;
let commerce: Commerce;
let catalog: Catalog;
let deps: DomainDeps;
let inGatewayTransaction: GatewayCommerce['inGatewayTransaction'];
let staffUserId: bigint;

beforeAll(async () => {
  shop = await openGatewayCommerce('refund_requests', 'rr');
  ({ commerce, catalog, deps, inGatewayTransaction } = shop);
  staffUserId = (
    await commerce.platform.database.prisma.staffUser.create({
      data: { email: 'refunds@example.com', passwordHash: 'scrypt$unused', name: 'Refunder' },
    })
  ).id;
});

afterAll(async () => {
  await shop?.close();
});

const prisma = () => commerce.platform.database.prisma;

/**
 * A customer's order of 2 × 19.90 (39.80), paid with `credit` EUR of store credit and a card for the
 * rest, fulfilled and captured (`fulfil: false` leaves it PLACED).
 */
async function paidOrder(name: string, credit: string, { fulfil = true } = {}): Promise<bigint> {
  const productId = await catalog.product(name, '19.90', 10);
  const customer = await prisma().customer.create({
    data: { channelId: catalog.channelId, email: `${name}@example.com`, passwordHash: 'scrypt$unused' },
  });
  const shopper = { customerId: customer.id };
  const cartId = await commerce.transaction(async (tx) => {
    await issueStoreCredit(tx, commerce.deps, {
      customerId: customer.id,
      currency: 'EUR',
      amount: credit,
      note: 'goodwill',
      idempotencyKey: `issue:${name}`,
    });
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId, quantity: 2 });
    return cart.id;
  });
  const order = await checkout(commerce.transaction, deps, {
    cartId,
    shopper,
    email: `${name}@example.com`,
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    idempotencyKey: `order:${name}`,
    useStoreCredit: true,
    card: { token: `tok_${name}` },
  });
  if (fulfil) {
    await inGatewayTransaction(async (tx) => {
      await fulfilOrder(tx, deps, order.id);
      await captureOrderTenders(tx, deps, order.id);
    });
  }
  return order.id;
}

const staff = (): RefundSource => ({ kind: 'STAFF', staffUserId });

const request = (input: Omit<RequestRefundInput, 'reason' | 'source'> & Partial<RequestRefundInput>) =>
  commerce.transaction((tx) => requestRefund(tx, commerce.deps, { reason: 'damaged in transit', source: staff(), ...input }));

describe('requestRefund', () => {
  it('splits the amount across the tenders, store credit first, and answers the first request to the same key', async () => {
    const orderId = await paidOrder('split', '15.00');
    const first = await request({ orderId, amount: '20.00', idempotencyKey: 'refund-split-1' });

    expect(first).toMatchObject({
      orderId: orderId.toString(),
      status: 'REQUESTED',
      amount: '20.00',
      currency: 'EUR',
      source: 'STAFF',
      staffUserId: staffUserId.toString(),
      rmaId: null,
    });
    expect(first.refunds.map((refund) => [refund.tenderKind, refund.amount, refund.destination, refund.status, refund.attempt])).toEqual([
      ['STORE_CREDIT', '15.00', 'ORIGINAL', 'REQUESTED', 1],
      ['CARD', '5.00', 'ORIGINAL', 'REQUESTED', 1],
    ]);
    const again = await request({ orderId, amount: '20.00', idempotencyKey: 'refund-split-1' });
    expect(again).toEqual(first);
    expect(await prisma().refundRequest.count({ where: { orderId } })).toBe(1);
    expect(
      await prisma().outboxEvent.count({
        where: { name: 'payments.refund_requested', payload: { path: ['refund_request_id'], equals: first.id } },
      }),
    ).toBe(1);

    const conflict = await refusal(request({ orderId, amount: '20.01', idempotencyKey: 'refund-split-1' }));
    expect(conflict).toMatchObject({ code: 'CONFLICT', details: { field: 'idempotencyKey' } });
  });

  it('refuses more than is left to refund, counting refunds not settled yet, and names what is refundable', async () => {
    const orderId = await paidOrder('bounded', '0.01');
    await request({ orderId, amount: '30.00', idempotencyKey: 'refund-bounded-1' });

    const tooMuch = await refusal(request({ orderId, amount: '9.81', idempotencyKey: 'refund-bounded-2' }));
    expect(tooMuch.code).toBe('BAD_USER_INPUT');
    expect(tooMuch.message).toContain('has 9.80 EUR left to refund, less than the 9.81 asked');
    expect(tooMuch.details).toMatchObject({ field: 'amount', refundable: '9.80' });

    // refund_requests.rma_id is a foreign key to return_authorizations: a real return of the order.
    const orderLine = await prisma().orderLine.findFirstOrThrow({ where: { orderId } });
    const rma = await commerce.transaction((tx) =>
      createReturnDraft(tx, commerce.deps, {
        orderId,
        lines: [{ orderLineId: orderLine.id, quantity: 1 }],
        reason: 'damaged in transit',
        actor: { kind: 'staff', staffUserId },
      }),
    );
    const rest = await request({ orderId, amount: '9.80', idempotencyKey: 'refund-bounded-3', source: { kind: 'RMA', rmaId: rma.id } });
    expect(rest).toMatchObject({ source: 'RMA', rmaId: rma.id.toString(), staffUserId: null });
    expect(rest.refunds.map((refund) => [refund.tenderKind, refund.amount])).toEqual([['CARD', '9.80']]);
  });

  it('lets concurrent requests on one order together take no more than was captured', async () => {
    const orderId = await paidOrder('concurrent', '0.01');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) => request({ orderId, amount: '10.00', idempotencyKey: `refund-concurrent-${index}` })),
    );

    const granted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome.reason as DomainError).code);
    expect(granted).toHaveLength(3);
    expect(refused).toEqual(Array.from({ length: 5 }, () => 'BAD_USER_INPUT'));
    const refunds = await prisma().refund.findMany({ where: { request: { orderId } } });
    expect(refunds.reduce((total, refund) => total + Number(refund.amount.mul(100)), 0)).toBe(3000);
  });

  it('refuses an order not fulfilled yet, an amount the currency cannot hold and a blank reason', async () => {
    const placed = await paidOrder('placed', '5.00', { fulfil: false });
    expect(await refusal(request({ orderId: placed, amount: '1.00', idempotencyKey: 'refund-placed-1' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'orderId' },
    });

    const orderId = await paidOrder('inputs', '5.00');
    expect(await refusal(request({ orderId, amount: '1.001', idempotencyKey: 'refund-inputs-1' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'amount' },
    });
    expect(await refusal(request({ orderId, amount: '1.00', idempotencyKey: 'refund-inputs-2', reason: '  ' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'reason' },
    });
    expect(await refusal(request({ orderId: 999_999_999n, amount: '1.00', idempotencyKey: 'refund-inputs-3' }))).toMatchObject({
      code: 'NOT_FOUND',
      details: { field: 'orderId' },
    });
  });
});

describe('retryRefund', () => {
  it('hands a REQUESTED refund (its run stranded) to its workflow again under the same attempt and key', async () => {
    const orderId = await paidOrder('stranded', '5.00');
    const requested = await request({ orderId, amount: '12.00', idempotencyKey: 'refund-stranded-1' });
    const card = requested.refunds.find((refund) => refund.tenderKind === 'CARD');
    const events = () =>
      prisma().outboxEvent.count({
        where: { name: 'payments.refund_requested', payload: { path: ['refund_request_id'], equals: requested.id } },
      });
    expect(await events()).toBe(1);

    const retried = await commerce.transaction((tx) => retryRefund(tx, commerce.deps, BigInt(card?.id ?? 0)));

    expect(retried).toEqual(requested);
    expect(await events()).toBe(2);
  });
});
