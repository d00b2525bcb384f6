// Returns credited in advance on real PostgreSQL: staff submit a return and pay what it is worth to
// the customer's store credit at once; the goods arriving refund nothing more, and goods that never
// come (the return cancelled, or expired past its receipt window) claw the credit back once, the part
// already spent as a REFUND_CLAWBACK overdraft draft.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { checkout } from '../../src/flows/checkout.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { fulfilOrder, markOrderPaid } from '../../src/orders/order-transitions.ts';
import { captureOrderTenders } from '../../src/tenders/tenders.ts';
import { executeRefund } from '../../src/refunds/refund-execution.ts';
import { requestRefund } from '../../src/refunds/refund-requests.ts';
import { customerStoreCreditAccount, debitStoreCredit, issueStoreCredit, storeCreditBalance } from '../../src/store-credit/store-credit.ts';
import { creditInAdvanceKeys } from '../../src/flows/credit-clawback.ts';
import { submitReturnWithCreditInAdvance } from '../../src/flows/credit-in-advance.ts';
import { createReturnDraft, findReturn, receiveReturn, type ReturnActor, type ReturnLineInput } from '../../src/returns/returns.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, refusal, type Catalog, type Commerce } from '../support/commerce.ts';
import { cancelReturn, closeReturn, expireUnreceivedReturns } from '../../src/flows/return-closing.ts';

let shop: GatewayCommerce;
let commerce: Commerce;
let catalog: Catalog;
/** The domain's dependencies with the test gateway, for the order paid by card. */
let gatewayDeps: DomainDeps;
let skus = 0;

beforeAll(async () => {
  shop = await openGatewayCommerce('return_credit', 'rca');
  ({ commerce, catalog, deps: gatewayDeps } = shop);
});

afterAll(async () => {
  await shop?.close();
});

const prisma = () => commerce.platform.database.prisma;
const STAFF: ReturnActor = { kind: 'staff', staffUserId: 1n };
const NOW = new Date('2026-11-27T10:00:00.000Z');
const hours = (count: number) => new Date(NOW.getTime() + count * 60 * 60_000);
/** The default `returnReceiptWindowHours` and `refundClawbackOverdraftHours`. */
const WINDOW_HOURS = 720;

/**
 * A FULFILLED order of a new customer, one line per item, paid wholly with store credit, the rest of
 * which the customer then spent (the balance is 0.00); or, as a guest, marked paid by staff.
 */
async function fulfilledOrder(name: string, items: { price: string; quantity: number }[], { guest = false } = {}) {
  commerce.setNow(NOW);
  const customer = guest
    ? null
    : await prisma().customer.create({
        data: { channelId: catalog.channelId, email: `${name}@example.com`, passwordHash: 'scrypt$unused' },
      });
  const productIds: bigint[] = [];
  for (const item of items) productIds.push(await catalog.product(`C${(skus += 1)}`, item.price, 20));
  const shopper = customer === null ? { sessionId: `session-${name}` } : { customerId: customer.id };
  const order = await commerce.transaction(async (tx) => {
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    for (const [index, item] of items.entries())
      await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId: productIds[index] ?? 0n, quantity: item.quantity });
    const checkout = { cartId: cart.id, shopper, email: `${name}@example.com`, billingAddress: ADDRESS, shippingAddress: ADDRESS };
    if (customer === null) {
      const placed = await placeOrder(tx, commerce.deps, checkout);
      await markOrderPaid(tx, commerce.deps, placed.id);
      return fulfilOrder(tx, commerce.deps, placed.id);
    }
    await issueStoreCredit(tx, commerce.deps, {
      customerId: customer.id,
      currency: 'EUR',
      amount: '1000.00',
      note: 'to spend',
      idempotencyKey: `issue:${name}`,
    });
    const placed = await placeOrder(tx, commerce.deps, { ...checkout, useStoreCredit: true, idempotencyKey: `checkout:${name}` });
    const account = await customerStoreCreditAccount(tx, customer.id, 'EUR');
    const left = await storeCreditBalance(tx, account.id);
    await debitStoreCredit(tx, commerce.deps, {
      accountId: account.id,
      amount: left.toFixed(2),
      note: 'spent elsewhere',
      idempotencyKey: `spend-rest:${name}`,
    });
    return fulfilOrder(tx, commerce.deps, placed.id);
  });
  const lineIds = productIds.map((productId) => order.lines.find((line) => line.productId === productId)?.id ?? 0n);
  const accountId = customer === null ? null : (await commerce.transaction((tx) => customerStoreCreditAccount(tx, customer.id, 'EUR'))).id;
  return { order, lineIds, accountId };
}

/** A customer's FULFILLED order of 2 × 19.90, paid 10.00 with store credit (all they had) and 29.80 by card, captured at the test gateway. */
async function cardOrder(name: string) {
  commerce.setNow(NOW);
  const productId = await catalog.product(`C${(skus += 1)}`, '19.90', 10);
  const customer = await prisma().customer.create({
    data: { channelId: catalog.channelId, email: `${name}@example.com`, passwordHash: 'scrypt$unused' },
  });
  const shopper = { customerId: customer.id };
  const cartId = await commerce.transaction(async (tx) => {
    await issueStoreCredit(tx, commerce.deps, {
      customerId: customer.id,
      currency: 'EUR',
      amount: '10.00',
      note: 'goodwill',
      idempotencyKey: `issue:${name}`,
    });
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId, quantity: 2 });
    return cart.id;
  });
  const input = {
    cartId,
    shopper,
    email: `${name}@example.com`,
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    idempotencyKey: `order:${name}`,
    useStoreCredit: true,
    card: { token: `tok_${name}` },
  };
  const placed = await checkout(commerce.transaction, gatewayDeps, input);
  const order = await shop.inGatewayTransaction(async (tx) => {
    const fulfilled = await fulfilOrder(tx, gatewayDeps, placed.id);
    await captureOrderTenders(tx, gatewayDeps, placed.id);
    return fulfilled;
  });
  const { id: accountId } = await commerce.transaction((tx) => customerStoreCreditAccount(tx, customer.id, 'EUR'));
  return { order, accountId };
}

const draft = (orderId: bigint, lines: ReturnLineInput[]) =>
  commerce.transaction((tx) => createReturnDraft(tx, commerce.deps, { orderId, lines, reason: 'does not fit', actor: STAFF }));
const submitWithCredit = (returnId: bigint) =>
  commerce.transaction((tx) => submitReturnWithCreditInAdvance(tx, commerce.deps, returnId, 1n));
const receive = (returnId: bigint, lines: ReturnLineInput[], idempotencyKey: string) =>
  commerce.transaction((tx) => receiveReturn(tx, commerce.deps, { returnId, lines, idempotencyKey, staffUserId: 1n }));
const balanceOf = async (accountId: bigint | null) => (await storeCreditBalance(prisma(), accountId ?? 0n)).toFixed(2);
const entriesOf = async (accountId: bigint | null, key: string) =>
  (
    await prisma().storeCreditEntry.findMany({
      where: { accountId: accountId ?? 0n, idempotencyKey: { startsWith: key } },
      orderBy: { id: 'asc' },
      include: { overdraftDraft: true },
    })
  ).map((entry) => [entry.kind, entry.status, entry.amount.toFixed(2), entry.idempotencyKey, entry.overdraftDraft?.reason ?? null]);

describe('returns credited in advance', () => {
  it('credits store credit at submission through a refund request, and refunds nothing more when the goods arrive', async () => {
    const { order, lineIds, accountId } = await fulfilledOrder('ada', [
      { price: '12.50', quantity: 2 },
      { price: '4.99', quantity: 1 },
    ]);
    const [shirt = 0n, socks = 0n] = lineIds;
    expect(await balanceOf(accountId)).toBe('0.00');
    const rma = await draft(order.id, [
      { orderLineId: shirt, quantity: 2 },
      { orderLineId: socks, quantity: 1 },
    ]);
    commerce.setNow(hours(1));
    const before = await commerce.lastEventId();

    const { rma: submitted, refund } = await submitWithCredit(rma.id);
    expect(submitted).toMatchObject({ status: 'REQUESTED', requestedAt: hours(1), receiptDueAt: hours(1 + WINDOW_HOURS) });
    expect(refund).toMatchObject({
      orderId: order.id.toString(),
      amount: '29.99',
      source: 'RMA',
      rmaId: rma.id.toString(),
      status: 'SUCCEEDED',
    });
    expect(refund.refunds.map((part) => [part.tenderKind, part.destination, part.status, part.amount])).toEqual([
      ['STORE_CREDIT', 'STORE_CREDIT', 'SUCCEEDED', '29.99'],
    ]);
    expect(await balanceOf(accountId)).toBe('29.99');
    const request = await prisma().refundRequest.findUniqueOrThrow({ where: { id: BigInt(refund.id) } });
    expect(request.idempotencyKey).toBe(creditInAdvanceKeys.credit(rma.id));
    expect((await commerce.events(before)).map((event) => [event.name, event.payload.to ?? event.payload.entry_kind ?? null])).toEqual([
      ['shop.returns.status_changed.v1', 'REQUESTED'],
      ['payments.refund_requested', null],
      ['shop.payments.store_credit_moved.v1', 'CREDIT'],
      ['shop.payments.refund_completed.v1', null],
    ]);

    const part = await receive(rma.id, [{ orderLineId: shirt, quantity: 2 }], `receipt:${rma.id}:1`);
    expect(part).toMatchObject({ refund: null, rma: { status: 'PARTIALLY_RECEIVED' } });
    const rest = await receive(rma.id, [{ orderLineId: socks, quantity: 1 }], `receipt:${rma.id}:2`);
    expect(rest).toMatchObject({ refund: null, rma: { status: 'REFUNDED' } });
    expect(await prisma().refundRequest.count({ where: { rmaId: rma.id } })).toBe(1);
    expect(await balanceOf(accountId)).toBe('29.99');
    // Received: the sweep passes it by, and nothing is clawed back.
    expect(
      await commerce.transaction((tx) => expireUnreceivedReturns(tx, commerce.deps, { asOf: hours(10 * WINDOW_HOURS), limit: 1000 })),
    ).toMatchObject({ more: false });
    expect(await entriesOf(accountId, 'clawback:')).toEqual([]);
  });

  it('claws the credit back when staff cancel the return, the part already spent as an overdraft draft, once', async () => {
    const { order, lineIds, accountId } = await fulfilledOrder('grace', [{ price: '30.00', quantity: 1 }]);
    const rma = await draft(order.id, [{ orderLineId: lineIds[0] ?? 0n, quantity: 1 }]);
    await submitWithCredit(rma.id);
    expect(await balanceOf(accountId)).toBe('30.00');
    await commerce.transaction((tx) =>
      debitStoreCredit(tx, commerce.deps, {
        accountId: accountId ?? 0n,
        amount: '18.00',
        note: 'spent on another order',
        idempotencyKey: 'spend:grace',
      }),
    );
    commerce.setNow(hours(5));
    const before = await commerce.lastEventId();

    const cancelled = await commerce.transaction((tx) => cancelReturn(tx, commerce.deps, rma.id));
    expect(cancelled).toMatchObject({ status: 'CANCELLED', closedAt: hours(5) });
    const key = creditInAdvanceKeys.clawback(rma.id);
    expect(key).toBe(`clawback:return:${rma.id}`);
    expect(await entriesOf(accountId, key)).toEqual([
      ['DEBIT', 'POSTED', '12.00', key, null],
      ['DEBIT', 'PENDING', '18.00', `${key}:overdraft`, 'REFUND_CLAWBACK'],
    ]);
    expect(await balanceOf(accountId)).toBe('-18.00');
    const draftRow = await prisma().storeCreditOverdraftDraft.findFirstOrThrow({ where: { accountId: accountId ?? 0n } });
    expect(draftRow).toMatchObject({ status: 'DRAFT', reason: 'REFUND_CLAWBACK', expiresAt: hours(5 + WINDOW_HOURS) });
    expect(draftRow.amount.toFixed(2)).toBe('18.00');
    const moved = (await commerce.events(before)).filter((event) => event.name === 'shop.payments.store_credit_moved.v1');
    expect(moved.map((event) => [event.payload.entry_status, event.payload.amount, event.payload.balance])).toEqual([
      ['POSTED', '12.00', '0.00'],
      ['PENDING', '18.00', '-18.00'],
    ]);

    expect(await refusal(commerce.transaction((tx) => cancelReturn(tx, commerce.deps, rma.id)))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { status: 'CANCELLED' },
    });
    expect(await refusal(receive(rma.id, [{ orderLineId: lineIds[0] ?? 0n, quantity: 1 }], `late:${rma.id}`))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { status: 'CANCELLED' },
    });
    expect(await entriesOf(accountId, 'clawback:')).toHaveLength(2);
  });

  it('expires a credited return whose goods missed the receipt window, clawing back once; a return on time stays', async () => {
    await commerce.transaction((tx) => expireUnreceivedReturns(tx, commerce.deps, { asOf: hours(100 * WINDOW_HOURS), limit: 1000 }));
    const { order, lineIds, accountId } = await fulfilledOrder('hedy', [{ price: '10.00', quantity: 3 }]);
    const line = lineIds[0] ?? 0n;
    const late = await draft(order.id, [{ orderLineId: line, quantity: 2 }]);
    await submitWithCredit(late.id);
    commerce.setNow(hours(2));
    const onTime = await draft(order.id, [{ orderLineId: line, quantity: 1 }]);
    await submitWithCredit(onTime.id);
    expect(await balanceOf(accountId)).toBe('30.00');
    const sweep = (asOf: Date, limit = 1000) => commerce.transaction((tx) => expireUnreceivedReturns(tx, commerce.deps, { asOf, limit }));

    expect(await sweep(hours(WINDOW_HOURS - 1))).toEqual({ expired: 0, more: false });
    commerce.setNow(hours(WINDOW_HOURS));
    expect(await sweep(hours(WINDOW_HOURS), 1)).toEqual({ expired: 1, more: true });
    expect(await sweep(hours(WINDOW_HOURS))).toEqual({ expired: 0, more: false });

    expect(await findReturn(prisma(), late.id, STAFF)).toMatchObject({ status: 'EXPIRED', closedAt: hours(WINDOW_HOURS) });
    expect((await findReturn(prisma(), onTime.id, STAFF)).status).toBe('REQUESTED');
    expect(await entriesOf(accountId, 'clawback:')).toEqual([['DEBIT', 'POSTED', '20.00', creditInAdvanceKeys.clawback(late.id), null]]);
    expect(await balanceOf(accountId)).toBe('10.00');
    expect(await prisma().storeCreditOverdraftDraft.count({ where: { accountId: accountId ?? 0n } })).toBe(0);
    // The expired return freed its units: they can be asked back again.
    expect((await draft(order.id, [{ orderLineId: line, quantity: 2 }])).status).toBe('DRAFT');
  });

  it('claws back only the units a partly received return never got once its receipt window passes, once, the spent part as a draft', async () => {
    await commerce.transaction((tx) => expireUnreceivedReturns(tx, commerce.deps, { asOf: hours(100 * WINDOW_HOURS), limit: 1000 }));
    const { order, lineIds, accountId } = await fulfilledOrder('ida', [{ price: '10.00', quantity: 3 }]);
    const line = lineIds[0] ?? 0n;
    const rma = await draft(order.id, [{ orderLineId: line, quantity: 3 }]);
    await submitWithCredit(rma.id);
    commerce.setNow(hours(2));
    expect(await receive(rma.id, [{ orderLineId: line, quantity: 1 }], `receipt:${rma.id}:1`)).toMatchObject({
      refund: null,
      rma: { status: 'PARTIALLY_RECEIVED' },
    });
    await commerce.transaction((tx) =>
      debitStoreCredit(tx, commerce.deps, {
        accountId: accountId ?? 0n,
        amount: '25.00',
        note: 'spent on another order',
        idempotencyKey: 'spend:ida',
      }),
    );
    expect(await balanceOf(accountId)).toBe('5.00');
    const sweep = (asOf: Date) => commerce.transaction((tx) => expireUnreceivedReturns(tx, commerce.deps, { asOf, limit: 1000 }));

    expect(await sweep(hours(WINDOW_HOURS - 1))).toEqual({ expired: 0, more: false });
    commerce.setNow(hours(WINDOW_HOURS));
    const before = await commerce.lastEventId();
    expect(await sweep(hours(WINDOW_HOURS))).toEqual({ expired: 1, more: false });
    expect(await sweep(hours(WINDOW_HOURS))).toEqual({ expired: 0, more: false });

    expect(await findReturn(prisma(), rma.id, STAFF)).toMatchObject({ status: 'CLOSED', closedAt: hours(WINDOW_HOURS), receivedAt: null });
    // 2 units of 10.00 never came: 20.00 back, 5.00 from the balance and the 15.00 already spent as a draft.
    const key = creditInAdvanceKeys.clawback(rma.id);
    expect(await entriesOf(accountId, 'clawback:')).toEqual([
      ['DEBIT', 'POSTED', '5.00', key, null],
      ['DEBIT', 'PENDING', '15.00', `${key}:overdraft`, 'REFUND_CLAWBACK'],
    ]);
    expect(await balanceOf(accountId)).toBe('-15.00');
    expect(
      (await commerce.events(before))
        .filter((event) => event.name === 'shop.returns.status_changed.v1')
        .map((event) => [event.payload.from, event.payload.to]),
    ).toEqual([['PARTIALLY_RECEIVED', 'CLOSED']]);

    // The rest arriving late is refused: nothing is received or credited again.
    expect(await refusal(receive(rma.id, [{ orderLineId: line, quantity: 2 }], `receipt:${rma.id}:2`))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { status: 'CLOSED' },
    });
    expect(await prisma().refundRequest.count({ where: { rmaId: rma.id } })).toBe(1);
    expect(await entriesOf(accountId, 'clawback:')).toHaveLength(2);
    expect(await balanceOf(accountId)).toBe('-15.00');
    // The closed return keeps only the unit that arrived: the other two can be asked back again.
    expect((await draft(order.id, [{ orderLineId: line, quantity: 2 }])).status).toBe('DRAFT');
  });

  it('claws back the credit for the missing units, at their prices, when staff close a partly received return', async () => {
    const { order, lineIds, accountId } = await fulfilledOrder('joan', [
      { price: '12.50', quantity: 2 },
      { price: '4.99', quantity: 1 },
    ]);
    const [shirt = 0n, socks = 0n] = lineIds;
    const rma = await draft(order.id, [
      { orderLineId: shirt, quantity: 2 },
      { orderLineId: socks, quantity: 1 },
    ]);
    await submitWithCredit(rma.id);
    await receive(rma.id, [{ orderLineId: shirt, quantity: 1 }], `receipt:${rma.id}:1`);
    commerce.setNow(hours(3));

    expect(await commerce.transaction((tx) => closeReturn(tx, commerce.deps, rma.id))).toMatchObject({
      status: 'CLOSED',
      closedAt: hours(3),
    });
    // One shirt and the socks never came: 12.50 + 4.99 of the 29.99 credited, which the balance still holds.
    expect(await entriesOf(accountId, 'clawback:')).toEqual([['DEBIT', 'POSTED', '17.49', creditInAdvanceKeys.clawback(rma.id), null]]);
    expect(await balanceOf(accountId)).toBe('12.50');
    expect(await prisma().storeCreditOverdraftDraft.count({ where: { accountId: accountId ?? 0n } })).toBe(0);
    // Closed before its window ran out: the sweep passes it by, and nothing is clawed back twice.
    await commerce.transaction((tx) => expireUnreceivedReturns(tx, commerce.deps, { asOf: hours(10 * WINDOW_HOURS), limit: 1000 }));
    expect(await entriesOf(accountId, 'clawback:')).toHaveLength(1);
  });

  it("pays a return credited in advance to store credit from every tender, the card's part without the gateway", async () => {
    const { order, accountId } = await cardOrder('advance');
    const orderId = order.id;
    const balance = () => balanceOf(accountId);
    expect(await balance()).toBe('0.00');
    const { refund, rma } = await commerce.transaction(async (tx) => {
      const drafted = await createReturnDraft(tx, commerce.deps, {
        orderId,
        lines: [{ orderLineId: order.lines[0]?.id ?? 0n, quantity: 2 }],
        reason: 'lost in the post',
        actor: STAFF,
      });
      return submitReturnWithCreditInAdvance(tx, commerce.deps, drafted.id, 1n);
    });

    expect(refund).toMatchObject({ amount: '39.80', status: 'SUCCEEDED', source: 'RMA', rmaId: rma.id.toString() });
    expect(refund.refunds.map((part) => [part.tenderKind, part.amount, part.destination, part.status, part.gatewayRefundId])).toEqual([
      ['STORE_CREDIT', '10.00', 'STORE_CREDIT', 'SUCCEEDED', null],
      ['CARD', '29.80', 'STORE_CREDIT', 'SUCCEEDED', null],
    ]);
    expect(await balance()).toBe('39.80');
    const card = await prisma().paymentTender.findFirstOrThrow({ where: { orderId, kind: 'CARD' } });
    expect(card.refundedAmount.toFixed(2)).toBe('29.80');
    const sentForCard = (await shop.control.requests())
      .filter((sent) => sent.authorizationId === card.gatewayReference)
      .map((sent) => sent.kind);
    expect(sentForCard).toContain('capture');
    expect(sentForCard).not.toContain('refund');
    const more = commerce.transaction((tx) =>
      requestRefund(tx, commerce.deps, {
        orderId,
        amount: '0.01',
        reason: 'again',
        idempotencyKey: 'refund-advance-more',
        source: { kind: 'STAFF', staffUserId: 1n },
      }),
    );
    expect(await refusal(more)).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'amount', refundable: '0.00' } });

    await commerce.transaction((tx) => cancelReturn(tx, commerce.deps, rma.id));
    expect(await balance()).toBe('0.00');
    expect(await entriesOf(accountId, 'clawback:')).toEqual([['DEBIT', 'POSTED', '39.80', creditInAdvanceKeys.clawback(rma.id), null]]);
  });

  it("refuses a guest's order and an order with nothing left to refund, recording nothing", async () => {
    const guest = await fulfilledOrder('guest', [{ price: '5.00', quantity: 1 }], { guest: true });
    const rma = await draft(guest.order.id, [{ orderLineId: guest.lineIds[0] ?? 0n, quantity: 1 }]);
    const refused = await refusal(submitWithCredit(rma.id));
    expect(refused).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'creditInAdvance' } });
    expect((refused as Error).message).toBe(
      `order ${guest.order.number} is a guest's: there is no store credit account to credit in advance; submit the return without it`,
    );
    expect(await findReturn(prisma(), rma.id, STAFF)).toMatchObject({ status: 'DRAFT', receiptDueAt: null });

    // Staff already gave back all the order's payment: the credit would refund it twice.
    const { order, lineIds, accountId } = await fulfilledOrder('katherine', [{ price: '8.00', quantity: 2 }]);
    await commerce.transaction(async (tx) => {
      const request = await requestRefund(tx, commerce.deps, {
        orderId: order.id,
        amount: order.total.toFixed(2),
        reason: 'goodwill',
        idempotencyKey: 'all-back',
        source: { kind: 'STAFF', staffUserId: 1n },
      });
      for (const refund of request.refunds) await executeRefund(tx, commerce.deps, BigInt(refund.id));
    });
    const credited = await balanceOf(accountId);
    const second = await draft(order.id, [{ orderLineId: lineIds[0] ?? 0n, quantity: 1 }]);
    const nothingLeft = await refusal(submitWithCredit(second.id));
    expect(nothingLeft).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'amount', refundable: '0.00' } });
    expect((nothingLeft as Error).message).toBe(`order ${order.number} has 0.00 EUR left to refund, less than the 8.00 asked`);
    expect(await findReturn(prisma(), second.id, STAFF)).toMatchObject({ status: 'DRAFT', receiptDueAt: null });
    expect(await prisma().refundRequest.count({ where: { orderId: order.id } })).toBe(1);
    expect(await balanceOf(accountId)).toBe(credited);
  });
});
