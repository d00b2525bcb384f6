import { Registry } from 'prom-client';
import { workflowMetrics } from '@shop/platform';
// Returns (RMAs) on real PostgreSQL: a customer or staff ask back units of a fulfilled order, never
// more than returns together leave; staff receive them in one or several receipts, once per key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainError } from '../../src/kernel/domain-error.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { fulfilOrder, markOrderPaid } from '../../src/orders/order-transitions.ts';
import { runRefundRequest } from '../../src/flows/refund-execution.ts';
import { requestRefund } from '../../src/refunds/refund-requests.ts';
import { customerStoreCreditAccount, issueStoreCredit, storeCreditBalance } from '../../src/store-credit/store-credit.ts';
import {
  createReturnDraft,
  expireReturnDrafts,
  findReturn,
  receiveReturn,
  returnRefundKey,
  submitReturn,
  type ReturnActor,
  type ReturnLineInput,
} from '../../src/returns/returns.ts';
import { ADDRESS, openCommerce, refusal, seedCatalog, type Catalog, type Commerce } from '../support/commerce.ts';
import { cancelReturn, closeReturn } from '../../src/flows/return-closing.ts';

const metrics = workflowMetrics(new Registry());

let commerce: Commerce;
let catalog: Catalog;
let skus = 0;

beforeAll(async () => {
  commerce = await openCommerce('returns');
  catalog = await seedCatalog(commerce, 'rma');
});

afterAll(async () => {
  await commerce?.close();
});

const prisma = () => commerce.platform.database.prisma;
const STAFF: ReturnActor = { kind: 'staff', staffUserId: 1n };
const NOW = new Date('2026-11-27T10:00:00.000Z');

async function newCustomer(name: string): Promise<bigint> {
  const customer = await prisma().customer.create({
    data: { channelId: catalog.channelId, email: `${name}@example.com`, passwordHash: 'scrypt$unused' },
  });
  return customer.id;
}

/**
 * A FULFILLED order of the customer with one line per item (a new product each), its line ids in that
 * order: marked paid by staff (no tender), or paid with store credit.
 */
async function fulfilledOrder(customerId: bigint, items: { price: string; quantity: number }[], { storeCredit = false } = {}) {
  commerce.setNow(NOW);
  const productIds: bigint[] = [];
  for (const item of items) productIds.push(await catalog.product(`P${(skus += 1)}`, item.price, 20));
  const shopper = { customerId };
  const order = await commerce.transaction(async (tx) => {
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    for (const [index, item] of items.entries())
      await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId: productIds[index] ?? 0n, quantity: item.quantity });
    const checkout = { cartId: cart.id, shopper, email: 'ada@example.com', billingAddress: ADDRESS, shippingAddress: ADDRESS };
    if (storeCredit) {
      await issueStoreCredit(tx, commerce.deps, {
        customerId,
        currency: 'EUR',
        amount: '500.00',
        note: 'to spend',
        idempotencyKey: `issue:${cart.id}`,
      });
      const placed = await placeOrder(tx, commerce.deps, { ...checkout, useStoreCredit: true, idempotencyKey: `checkout:${cart.id}` });
      return fulfilOrder(tx, commerce.deps, placed.id);
    }
    const placed = await placeOrder(tx, commerce.deps, checkout);
    await markOrderPaid(tx, commerce.deps, placed.id);
    return fulfilOrder(tx, commerce.deps, placed.id);
  });
  const lineIds = productIds.map((productId) => order.lines.find((line) => line.productId === productId)?.id ?? 0n);
  return { order, lineIds };
}

const draft = (orderId: bigint, lines: ReturnLineInput[], actor: ReturnActor = STAFF, reason = 'does not fit') =>
  commerce.transaction((tx) => createReturnDraft(tx, commerce.deps, { orderId, lines, reason, actor }));
const submit = (returnId: bigint, actor: ReturnActor = STAFF) =>
  commerce.transaction((tx) => submitReturn(tx, commerce.deps, returnId, actor));
const receive = (returnId: bigint, lines: ReturnLineInput[], idempotencyKey: string) =>
  commerce.transaction((tx) => receiveReturn(tx, commerce.deps, { returnId, lines, idempotencyKey, staffUserId: 1n }));

describe('returns', () => {
  it('lets a customer draft a return of their own order and submit it, each change an event', async () => {
    const customerId = await newCustomer('ada');
    const { order, lineIds } = await fulfilledOrder(customerId, [
      { price: '10.00', quantity: 2 },
      { price: '4.50', quantity: 1 },
    ]);
    const [mug = 0n, tea = 0n] = lineIds;
    const me: ReturnActor = { kind: 'customer', customerId };
    const before = await commerce.lastEventId();

    const created = await draft(
      order.id,
      [
        { orderLineId: mug, quantity: 1 },
        { orderLineId: tea, quantity: 1 },
      ],
      me,
      '  arrived broken  ',
    );
    expect(created).toMatchObject({
      status: 'DRAFT',
      reason: 'arrived broken',
      createdByStaffId: null,
      draftExpiresAt: new Date(NOW.getTime() + 72 * 60 * 60_000),
    });
    commerce.setNow(new Date(NOW.getTime() + 60_000));
    const submitted = await submit(created.id, me);
    expect(submitted).toMatchObject({ status: 'REQUESTED', requestedAt: new Date(NOW.getTime() + 60_000) });

    const events = await commerce.events(before);
    expect(events.map((event) => [event.name, event.payload.from, event.payload.to])).toEqual([
      ['shop.returns.status_changed.v1', null, 'DRAFT'],
      ['shop.returns.status_changed.v1', 'DRAFT', 'REQUESTED'],
    ]);
    expect(events[1]?.payload).toMatchObject({
      return_id: created.id.toString(),
      order_id: order.id.toString(),
      order_number: order.number,
      customer_id: customerId.toString(),
      lines: [
        { order_line_id: mug.toString(), quantity_requested: 1, quantity_received: 0 },
        { order_line_id: tea.toString(), quantity_requested: 1, quantity_received: 0 },
      ],
    });
  });

  it("answers another customer's order or return as missing", async () => {
    const { order, lineIds } = await fulfilledOrder(await newCustomer('owner'), [{ price: '10.00', quantity: 1 }]);
    const stranger: ReturnActor = { kind: 'customer', customerId: await newCustomer('stranger') };
    const line = { orderLineId: lineIds[0] ?? 0n, quantity: 1 };

    expect(await refusal(draft(order.id, [line], stranger))).toMatchObject({ code: 'NOT_FOUND', details: { field: 'orderId' } });
    const rma = await draft(order.id, [line]);
    expect(await refusal(submit(rma.id, stranger))).toMatchObject({ code: 'NOT_FOUND', details: { field: 'returnId' } });
    expect(await refusal(findReturn(prisma(), rma.id, stranger))).toMatchObject({ code: 'NOT_FOUND', details: { field: 'id' } });
    expect((await findReturn(prisma(), rma.id, STAFF)).status).toBe('DRAFT');
  });

  it('refuses bad lines, a blank reason and an order not fulfilled, naming the field', async () => {
    const customerId = await newCustomer('grace');
    const { order, lineIds } = await fulfilledOrder(customerId, [{ price: '10.00', quantity: 2 }]);
    const { order: other } = await fulfilledOrder(customerId, [{ price: '3.00', quantity: 1 }]);
    const line = lineIds[0] ?? 0n;
    const draftRefusal = (lines: ReturnLineInput[], reason = 'wrong size', orderId = order.id) =>
      refusal(draft(orderId, lines, STAFF, reason));

    expect(await draftRefusal([])).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'lines' } });
    expect(await draftRefusal([{ orderLineId: line, quantity: 0 }])).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'lines[0].quantity' },
    });
    expect(await draftRefusal([{ orderLineId: line, quantity: 1.5 }])).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'lines[0].quantity' },
    });
    expect(
      await draftRefusal([
        { orderLineId: line, quantity: 1 },
        { orderLineId: line, quantity: 1 },
      ]),
    ).toMatchObject({ details: { field: 'lines[1].orderLineId' } });
    const foreign = await draftRefusal([{ orderLineId: other.lines[0]?.id ?? 0n, quantity: 1 }]);
    expect(foreign).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'lines[0].orderLineId' } });
    expect((foreign as Error).message).toBe(`order line ${other.lines[0]?.id} is not a line of order ${order.number}`);
    expect(await draftRefusal([{ orderLineId: line, quantity: 3 }])).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'lines[0].quantity', returnable: 2 },
    });
    expect(await draftRefusal([{ orderLineId: line, quantity: 1 }], '   ')).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'reason' },
    });

    const unpaid = await commerce.transaction(async (tx) => {
      const shopper = { customerId };
      const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
      await addCartLine(tx, commerce.deps, {
        cartId: cart.id,
        shopper,
        productId: await catalog.product(`P${(skus += 1)}`, '1.00', 5),
        quantity: 1,
      });
      return placeOrder(tx, commerce.deps, {
        cartId: cart.id,
        shopper,
        email: 'g@example.com',
        billingAddress: ADDRESS,
        shippingAddress: ADDRESS,
      });
    });
    const early = await draftRefusal([{ orderLineId: unpaid.lines[0]?.id ?? 0n, quantity: 1 }], 'changed my mind', unpaid.id);
    expect(early).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'orderId' } });
    expect((early as Error).message).toBe(
      `order ${unpaid.number} is PENDING_PAYMENT: only a FULFILLED or COMPLETED order's lines can be returned`,
    );
    expect(await prisma().returnAuthorization.count({ where: { orderId: { in: [order.id, other.id, unpaid.id] } } })).toBe(0);
  });

  it('never asks back more than was ordered less what other returns hold, a cancelled or expired draft freeing its units', async () => {
    const { order, lineIds } = await fulfilledOrder(await newCustomer('hedy'), [{ price: '10.00', quantity: 3 }]);
    const line = lineIds[0] ?? 0n;
    const ask = (quantity: number) => draft(order.id, [{ orderLineId: line, quantity }]);

    const first = await ask(2);
    const refused = await refusal(ask(2));
    expect(refused).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'lines[0].quantity', returnable: 1 } });
    expect((refused as Error).message).toContain('only 1 of the 3 ordered can still be returned');
    await commerce.transaction((tx) => cancelReturn(tx, commerce.deps, first.id));
    const second = await ask(3);

    commerce.setNow(second.draftExpiresAt);
    expect(await refusal(submit(second.id))).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'returnId' } });
    const third = await ask(3);
    await submit(third.id);
    await receive(third.id, [{ orderLineId: line, quantity: 3 }], `receipt:${third.id}`);
    expect(await refusal(ask(1))).toMatchObject({ details: { returnable: 0 } });
  });

  it('lets concurrent returns of one order take only the units there are', async () => {
    const { order, lineIds } = await fulfilledOrder(await newCustomer('katherine'), [{ price: '10.00', quantity: 2 }]);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => draft(order.id, [{ orderLineId: lineIds[0] ?? 0n, quantity: 1 }])),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect((outcome.reason as DomainError).code).toBe('BAD_USER_INPUT');
  });

  it('receives goods in parts, each receipt once per key and worth its units at the order prices', async () => {
    const { order, lineIds } = await fulfilledOrder(await newCustomer('margaret'), [
      { price: '12.50', quantity: 3 },
      { price: '4.99', quantity: 2 },
    ]);
    const [shirt = 0n, socks = 0n] = lineIds;
    const rma = await draft(order.id, [
      { orderLineId: shirt, quantity: 2 },
      { orderLineId: socks, quantity: 2 },
    ]);
    expect(await refusal(receive(rma.id, [{ orderLineId: shirt, quantity: 1 }], 'early'))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'returnId', status: 'DRAFT' },
    });
    await submit(rma.id);
    const before = await commerce.lastEventId();

    const first = await receive(
      rma.id,
      [
        { orderLineId: shirt, quantity: 1 },
        { orderLineId: socks, quantity: 2 },
      ],
      `receipt:${rma.id}:1`,
    );
    expect(first.recorded).toBe(true);
    // Marked paid by staff: no tender to refund through.
    expect(first.refund).toBeNull();
    expect(first.receipt).toMatchObject({ currency: 'EUR' });
    expect(first.receipt.amount.toFixed(2)).toBe('22.48');
    expect(first.rma.status).toBe('PARTIALLY_RECEIVED');
    const replay = await receive(
      rma.id,
      [
        { orderLineId: socks, quantity: 2 },
        { orderLineId: shirt, quantity: 1 },
      ],
      `receipt:${rma.id}:1`,
    );
    expect(replay).toMatchObject({ recorded: false, receipt: { id: first.receipt.id } });
    expect(await refusal(receive(rma.id, [{ orderLineId: shirt, quantity: 1 }], `receipt:${rma.id}:1`))).toMatchObject({
      code: 'CONFLICT',
      details: { field: 'idempotencyKey' },
    });
    const tooMany = await refusal(receive(rma.id, [{ orderLineId: shirt, quantity: 2 }], `receipt:${rma.id}:2`));
    expect(tooMany).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'lines[0].quantity', expected: 1 } });
    expect(await refusal(receive(rma.id, [{ orderLineId: 999_999n, quantity: 1 }], `receipt:${rma.id}:2`))).toMatchObject({
      details: { field: 'lines[0].orderLineId' },
    });
    expect(await refusal(commerce.transaction((tx) => cancelReturn(tx, commerce.deps, rma.id)))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { status: 'PARTIALLY_RECEIVED' },
    });

    commerce.setNow(new Date(NOW.getTime() + 3_600_000));
    const rest = await receive(rma.id, [{ orderLineId: shirt, quantity: 1 }], `receipt:${rma.id}:2`);
    expect(rest.receipt.amount.toFixed(2)).toBe('12.50');
    expect(rest.rma).toMatchObject({ status: 'RECEIVED', receivedAt: new Date(NOW.getTime() + 3_600_000) });
    expect(rest.rma.lines.map((line) => [line.quantityRequested, line.quantityReceived])).toEqual([
      [2, 2],
      [2, 2],
    ]);
    expect((await commerce.events(before)).map((event) => [event.payload.from, event.payload.to])).toEqual([
      ['REQUESTED', 'PARTIALLY_RECEIVED'],
      ['PARTIALLY_RECEIVED', 'RECEIVED'],
    ]);
    expect(await prisma().returnReceipt.count({ where: { returnAuthorizationId: rma.id } })).toBe(2);
  });

  it('requests the refund of each receipt once, and is REFUNDED once all of them succeeded', async () => {
    const customerId = await newCustomer('barbara');
    const { order, lineIds } = await fulfilledOrder(
      customerId,
      [
        { price: '12.50', quantity: 2 },
        { price: '4.99', quantity: 1 },
      ],
      { storeCredit: true },
    );
    const [shirt = 0n, socks = 0n] = lineIds;
    const { id: accountId } = await commerce.transaction((tx) => customerStoreCreditAccount(tx, customerId, 'EUR'));
    const rma = await draft(order.id, [
      { orderLineId: shirt, quantity: 2 },
      { orderLineId: socks, quantity: 1 },
    ]);
    await submit(rma.id);
    const run = (requestId: string) =>
      runRefundRequest(
        { transaction: commerce.transaction, deps: commerce.deps, metrics },
        { requestId: BigInt(requestId), run: { workflow: 'test', workflowId: `refund-${requestId}`, runId: '1' } },
      );
    const balance = async () => (await storeCreditBalance(prisma(), accountId)).toFixed(2);
    expect(await balance()).toBe('470.01');

    const first = await receive(rma.id, [{ orderLineId: shirt, quantity: 1 }], `receipt:${rma.id}:1`);
    expect(first.refund).toMatchObject({
      orderId: order.id.toString(),
      amount: '12.50',
      currency: 'EUR',
      source: 'RMA',
      rmaId: rma.id.toString(),
      status: 'REQUESTED',
    });
    const request = await prisma().refundRequest.findUniqueOrThrow({ where: { id: BigInt(first.refund?.id ?? '0') } });
    expect(request.idempotencyKey).toBe(returnRefundKey(rma.id, first.receipt.id));
    expect((await receive(rma.id, [{ orderLineId: shirt, quantity: 1 }], `receipt:${rma.id}:1`)).refund?.id).toBe(first.refund?.id);
    expect(await run(first.refund?.id ?? '0')).toMatchObject({ status: 'SUCCEEDED' });
    expect((await findReturn(prisma(), rma.id, STAFF)).status).toBe('PARTIALLY_RECEIVED');

    const rest = await receive(
      rma.id,
      [
        { orderLineId: shirt, quantity: 1 },
        { orderLineId: socks, quantity: 1 },
      ],
      `receipt:${rma.id}:2`,
    );
    expect(rest.rma.status).toBe('RECEIVED');
    expect(rest.refund).toMatchObject({ amount: '17.49', status: 'REQUESTED' });
    const before = await commerce.lastEventId();
    commerce.setNow(new Date(NOW.getTime() + 7_200_000));
    expect(await run(rest.refund?.id ?? '0')).toMatchObject({ status: 'SUCCEEDED' });

    expect(await findReturn(prisma(), rma.id, STAFF)).toMatchObject({
      status: 'REFUNDED',
      refundedAt: new Date(NOW.getTime() + 7_200_000),
    });
    expect(await balance()).toBe('500.00');
    expect(await prisma().refundRequest.count({ where: { rmaId: rma.id } })).toBe(2);
    const changes = (await commerce.events(before)).filter((event) => event.name === 'shop.returns.status_changed.v1');
    expect(changes.map((event) => [event.payload.from, event.payload.to])).toEqual([['RECEIVED', 'REFUNDED']]);
  });

  it('lets staff close a partly received return whose other units will not come, refunding nothing more than what arrived', async () => {
    const customerId = await newCustomer('mary');
    const { order, lineIds } = await fulfilledOrder(customerId, [{ price: '12.50', quantity: 3 }], { storeCredit: true });
    const shirt = lineIds[0] ?? 0n;
    const rma = await draft(order.id, [{ orderLineId: shirt, quantity: 3 }]);
    await submit(rma.id);
    const close = () => commerce.transaction((tx) => closeReturn(tx, commerce.deps, rma.id));
    expect(await refusal(close())).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'returnId', status: 'REQUESTED' } });
    const first = await receive(rma.id, [{ orderLineId: shirt, quantity: 1 }], `receipt:${rma.id}:1`);
    expect(first.refund).toMatchObject({ amount: '12.50', status: 'REQUESTED' });
    commerce.setNow(new Date(NOW.getTime() + 3_600_000));
    const before = await commerce.lastEventId();

    expect(await close()).toMatchObject({ status: 'CLOSED', closedAt: new Date(NOW.getTime() + 3_600_000), receivedAt: null });
    expect((await commerce.events(before)).map((event) => [event.name, event.payload.from, event.payload.to])).toEqual([
      ['shop.returns.status_changed.v1', 'PARTIALLY_RECEIVED', 'CLOSED'],
    ]);
    // The receipt's refund is the return's only one; closing asks for nothing more, and CLOSED is final.
    expect(await prisma().refundRequest.findMany({ where: { rmaId: rma.id }, select: { amount: true } })).toEqual([
      { amount: first.receipt.amount },
    ]);
    expect(await refusal(close())).toMatchObject({ code: 'BAD_USER_INPUT', details: { status: 'CLOSED' } });
    expect(await refusal(receive(rma.id, [{ orderLineId: shirt, quantity: 2 }], `receipt:${rma.id}:2`))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { status: 'CLOSED' },
    });
    // It keeps the unit that arrived: the two missing can be asked back again, not three.
    expect(await refusal(draft(order.id, [{ orderLineId: shirt, quantity: 3 }]))).toMatchObject({ details: { returnable: 2 } });
  });

  it('keeps refund requests to returns that exist', async () => {
    const { order } = await fulfilledOrder(await newCustomer('frances'), [{ price: '9.00', quantity: 1 }], { storeCredit: true });
    await expect(
      commerce.transaction((tx) =>
        requestRefund(tx, commerce.deps, {
          orderId: order.id,
          amount: '9.00',
          reason: 'no such return',
          idempotencyKey: 'rma:orphan',
          source: { kind: 'RMA', rmaId: 999_999n },
        }),
      ),
    ).rejects.toThrow('refund_requests_rma_id_fkey');
  });

  it('expires drafts past their expiry in bounded batches, once, and leaves the others', async () => {
    const { order, lineIds } = await fulfilledOrder(await newCustomer('radia'), [{ price: '1.00', quantity: 5 }]);
    const line = lineIds[0] ?? 0n;
    const hours = (count: number) => new Date(NOW.getTime() + count * 60 * 60_000);
    // The earlier tests' drafts expire 72 hours after NOW: out of the way first.
    await commerce.transaction((tx) => expireReturnDrafts(tx, commerce.deps, { asOf: hours(72), limit: 1000 }));
    commerce.setNow(hours(1));
    const due = [await draft(order.id, [{ orderLineId: line, quantity: 1 }]), await draft(order.id, [{ orderLineId: line, quantity: 1 }])];
    const submitted = await draft(order.id, [{ orderLineId: line, quantity: 1 }]);
    await submit(submitted.id);
    commerce.setNow(hours(2));
    const later = await draft(order.id, [{ orderLineId: line, quantity: 1 }]);
    const asOf = hours(73);
    expect(due.map((rma) => rma.draftExpiresAt)).toEqual([asOf, asOf]);
    const expire = (limit: number) => commerce.transaction((tx) => expireReturnDrafts(tx, commerce.deps, { asOf, limit }));

    expect(await expire(1)).toEqual({ expired: 1, more: true });
    expect(await expire(1)).toEqual({ expired: 1, more: true });
    expect(await expire(1)).toEqual({ expired: 0, more: false });
    const statuses = await prisma().returnAuthorization.findMany({
      where: { orderId: order.id },
      orderBy: { id: 'asc' },
      select: { status: true },
    });
    expect(statuses.map((row) => row.status)).toEqual(['EXPIRED', 'EXPIRED', 'REQUESTED', 'DRAFT']);
    expect(later.status).toBe('DRAFT');
  });
});
