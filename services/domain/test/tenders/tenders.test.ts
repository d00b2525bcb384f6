// Card tenders against the real test gateway (its own HTTP server on this test's database): every
// test asserts what the gateway itself logged, so "once" means once at the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGatewayControl } from '../../../../tools/test-gateway/src/index.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { checkout } from '../../src/flows/checkout.ts';
import { cancelOrder } from '../../src/flows/order-cancellation.ts';
import { captureOrderTenders, captureTender, tenderKeys } from '../../src/tenders/tenders.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, refusal, type Catalog, type Commerce } from '../support/commerce.ts';

let shop: GatewayCommerce;
let commerce: Commerce;
let catalog: Catalog;
let control: TestGatewayControl;
let deps: DomainDeps;
let guestCart: GatewayCommerce['guestCart'];
let payByCard: GatewayCommerce['payByCard'];
let inGatewayTransaction: GatewayCommerce['inGatewayTransaction'];

beforeAll(async () => {
  shop = await openGatewayCommerce('tenders', 'td');
  ({ commerce, catalog, control, deps, inGatewayTransaction, guestCart, payByCard } = shop);
});

afterAll(async () => {
  await shop?.close();
});

const prisma = () => commerce.platform.database.prisma;

/** The gateway's own log of the requests sent with this key: their outcomes, in order. */
async function gatewayRequests(idempotencyKey: string): Promise<string[]> {
  return (await control.requests())
    .filter((request) => request.idempotencyKey === idempotencyKey)
    .map((request) => `${request.kind}:${request.outcome}`);
}

async function gatewayOperations(idempotencyKey: string) {
  return (await control.operations()).filter((operation) => operation.idempotencyKey === idempotencyKey);
}

const reserved = async (productId: bigint) =>
  (await prisma().stockLevel.findUniqueOrThrow({ where: { productId_locationId: { productId, locationId: catalog.locationId } } }))
    .reserved;

describe('checkout with a card', () => {
  it('authorizes the total once when the checkout is retried after the gateway committed and then failed', async () => {
    const cart = await guestCart('retry-tee');
    const token = 'tok_retry';
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'authorize', cardToken: token });

    const lost = await refusal(payByCard(cart, 'checkout-retry-1', token));
    expect(lost.code).toBe('UNAVAILABLE');
    expect(await prisma().order.count({ where: { cartId: cart.cartId } })).toBe(0);
    expect(await reserved(cart.productId)).toBe(0);

    const order = await payByCard(cart, 'checkout-retry-1', token);
    expect(order.status).toBe('PLACED');
    const again = await payByCard(cart, 'checkout-retry-1', token);
    expect(again.id).toBe(order.id);

    const key = tenderKeys.authorize(cart.cartId, 'checkout-retry-1');
    expect(await gatewayRequests(key)).toEqual(['authorize:executed', 'authorize:replayed']);
    const [authorization, ...more] = await gatewayOperations(key);
    expect(more).toEqual([]);
    expect(authorization).toMatchObject({ status: 'approved', amount: { amountMinor: 3980, currency: 'EUR' } });

    const tenders = await prisma().paymentTender.findMany({ where: { orderId: order.id }, include: { events: true } });
    expect(tenders).toHaveLength(1);
    expect(tenders[0]).toMatchObject({
      kind: 'CARD',
      status: 'AUTHORIZED',
      currency: 'EUR',
      gatewayReference: authorization?.authorizationId,
      idempotencyKey: key,
    });
    expect(tenders[0]?.authorizedAmount.toFixed(2)).toBe('39.80');
    expect(tenders[0]?.authorizationExpiresAt?.getTime()).toBe(
      new Date(authorization?.createdAt ?? '').getTime() + 7 * 24 * 60 * 60 * 1000,
    );
    expect(tenders[0]?.events.map((event) => event.kind)).toEqual(['AUTHORIZED']);
  });

  it('refuses a declined card whole: no order, no stock held, the cart still open, one declined authorization at the gateway', async () => {
    const cart = await guestCart('declined-tee');
    const token = 'tok_declined';
    await control.addFault({ fault: { kind: 'decline' }, operation: 'authorize', cardToken: token });
    const before = await commerce.lastEventId();

    const declined = await refusal(payByCard(cart, 'checkout-declined-1', token));
    expect(declined.code).toBe('BAD_USER_INPUT');
    expect(declined.message).toBe('the card was declined (card_declined): pay with another card');
    expect(declined.details).toMatchObject({ field: 'card', declineCode: 'card_declined' });

    expect(await prisma().order.count({ where: { cartId: cart.cartId } })).toBe(0);
    expect((await prisma().cart.findUniqueOrThrow({ where: { id: cart.cartId } })).status).toBe('ACTIVE');
    expect(await reserved(cart.productId)).toBe(0);
    expect(await prisma().paymentTender.count({ where: { cartId: cart.cartId } })).toBe(0);
    expect(await commerce.events(before)).toEqual([]);
    const key = tenderKeys.authorize(cart.cartId, 'checkout-declined-1');
    expect((await gatewayOperations(key)).map((operation) => operation.status)).toEqual(['declined']);

    // Another card, under a new checkout key, pays for the same cart.
    const order = await payByCard(cart, 'checkout-declined-2', 'tok_good');
    expect(order.status).toBe('PLACED');
  });

  it('refuses a card that asks for 3-D Secure, and a card when no gateway is configured', async () => {
    const cart = await guestCart('action-tee');
    await control.addFault({ fault: { kind: 'requires_action' }, operation: 'authorize', cardToken: 'tok_3ds' });
    const action = await refusal(payByCard(cart, 'checkout-3ds-1', 'tok_3ds'));
    expect(action).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'card' } });
    expect(action.message).toMatch(/3-D Secure/);
    expect(await prisma().order.count({ where: { cartId: cart.cartId } })).toBe(0);

    const unconfigured = await refusal(
      checkout(commerce.transaction, commerce.deps, {
        cartId: cart.cartId,
        shopper: { sessionId: cart.sessionId },
        email: 'ada@example.com',
        billingAddress: ADDRESS,
        shippingAddress: ADDRESS,
        idempotencyKey: 'checkout-unconfigured-1',
        card: { token: 'tok_nowhere' },
      }),
    );
    expect(unconfigured).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'card payments are not set up on this shop: no payment gateway is configured',
      details: { field: 'card' },
    });
  });

  it('needs an idempotency key to pay by card', async () => {
    const cart = await guestCart('keyless-tee');
    const refused = await refusal(
      checkout(commerce.transaction, deps, {
        cartId: cart.cartId,
        shopper: { sessionId: cart.sessionId },
        email: 'ada@example.com',
        billingAddress: ADDRESS,
        shippingAddress: ADDRESS,
        card: { token: 'tok_keyless' },
      }),
    );
    expect(refused.details).toMatchObject({ field: 'idempotencyKey' });
  });
});

describe('capture', () => {
  it('captures once when the capture is retried after the gateway committed and then failed', async () => {
    const cart = await guestCart('capture-tee', { quantity: 1 });
    const token = 'tok_capture';
    const order = await payByCard(cart, 'checkout-capture-1', token);
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'capture', cardToken: token });
    const before = await commerce.lastEventId();

    const lost = await refusal(inGatewayTransaction((tx) => captureOrderTenders(tx, deps, order.id)));
    expect(lost.code).toBe('UNAVAILABLE');
    expect((await prisma().paymentTender.findFirstOrThrow({ where: { orderId: order.id } })).status).toBe('AUTHORIZED');

    const [tender] = await inGatewayTransaction((tx) => captureOrderTenders(tx, deps, order.id));
    expect(tender).toMatchObject({ status: 'CAPTURED' });
    expect(tender?.capturedAmount.toFixed(2)).toBe('19.90');
    // Captured already: nothing reaches the gateway.
    await inGatewayTransaction((tx) => captureTender(tx, deps, tender?.id ?? 0n));

    const key = tenderKeys.capture(tender?.id ?? 0n);
    expect(await gatewayRequests(key)).toEqual(['capture:executed', 'capture:replayed']);
    expect((await gatewayOperations(key)).map((operation) => [operation.status, operation.amount.amountMinor])).toEqual([
      ['approved', 1990],
    ]);
    const moved = (await commerce.events(before)).filter((event) => event.name === 'shop.payments.money_moved.v1');
    expect(moved.map((event) => event.payload)).toEqual([
      expect.objectContaining({
        tender_id: tender?.id.toString(),
        order_id: order.id.toString(),
        movement: 'CAPTURED',
        amount: '19.90',
        currency: 'EUR',
        tender_kind: 'CARD',
      }),
    ]);
  });
});

describe('cancelling', () => {
  it('voids an authorized tender, once, and releases the stock', async () => {
    const cart = await guestCart('void-tee');
    const order = await payByCard(cart, 'checkout-void-1', 'tok_void');
    const before = await commerce.lastEventId();
    await inGatewayTransaction((tx) => cancelOrder(tx, deps, order.id, 'customer changed their mind'));
    const moved = (await commerce.events(before)).filter((event) => event.name === 'shop.payments.money_moved.v1');
    expect(moved.map((event) => [event.payload.movement, event.payload.amount])).toEqual([['VOIDED', '39.80']]);

    const tender = await prisma().paymentTender.findFirstOrThrow({
      where: { orderId: order.id },
      include: { events: { orderBy: { id: 'asc' } } },
    });
    expect(tender.status).toBe('VOIDED');
    expect(tender.voidedAmount.toFixed(2)).toBe('39.80');
    expect(tender.events.map((event) => [event.kind, event.amount.toFixed(2), event.idempotencyKey])).toEqual([
      ['AUTHORIZED', '39.80', tenderKeys.authorize(cart.cartId, 'checkout-void-1')],
      ['VOIDED', '39.80', tenderKeys.void(tender.id)],
    ]);
    expect(await gatewayRequests(tenderKeys.void(tender.id))).toEqual(['void:executed']);
    expect((await gatewayOperations(tenderKeys.void(tender.id))).map((operation) => operation.status)).toEqual(['approved']);
    expect(
      (
        await prisma().stockLevel.findUniqueOrThrow({
          where: { productId_locationId: { productId: cart.productId, locationId: catalog.locationId } },
        })
      ).onHand,
    ).toBe(10);
  });

  it('rolls the cancellation back when the gateway does not answer, and the next cancellation voids once', async () => {
    const cart = await guestCart('void-retry-tee', { quantity: 1 });
    const token = 'tok_void_retry';
    const order = await payByCard(cart, 'checkout-void-retry-1', token);
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'void', cardToken: token });

    const lost = await refusal(inGatewayTransaction((tx) => cancelOrder(tx, deps, order.id, 'out of stock')));
    expect(lost.code).toBe('UNAVAILABLE');
    expect((await prisma().order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe('PLACED');

    const cancelled = await inGatewayTransaction((tx) => cancelOrder(tx, deps, order.id, 'out of stock'));
    expect(cancelled.status).toBe('CANCELLED');
    const tender = await prisma().paymentTender.findFirstOrThrow({ where: { orderId: order.id } });
    expect(tender.status).toBe('VOIDED');
    expect(await gatewayRequests(tenderKeys.void(tender.id))).toEqual(['void:executed', 'void:replayed']);
  });

  it('refunds a captured tender what was captured', async () => {
    const cart = await guestCart('refund-tee', { quantity: 1 });
    const order = await payByCard(cart, 'checkout-refund-1', 'tok_refund');
    await inGatewayTransaction((tx) => captureOrderTenders(tx, deps, order.id));
    await inGatewayTransaction((tx) => cancelOrder(tx, deps, order.id, 'damaged in the warehouse'));

    const tender = await prisma().paymentTender.findFirstOrThrow({
      where: { orderId: order.id },
      include: { events: { orderBy: { id: 'asc' } } },
    });
    expect(tender).toMatchObject({ status: 'REFUNDED' });
    expect([tender.capturedAmount.toFixed(2), tender.refundedAmount.toFixed(2), tender.voidedAmount.toFixed(2)]).toEqual([
      '19.90',
      '19.90',
      '0.00',
    ]);
    expect(tender.events.map((event) => event.kind)).toEqual(['AUTHORIZED', 'CAPTURED', 'REFUNDED']);
    expect(
      (await gatewayOperations(tenderKeys.cancelRefund(tender.id))).map((operation) => [
        operation.kind,
        operation.status,
        operation.amount.amountMinor,
      ]),
    ).toEqual([['refund', 'approved', 1990]]);
  });

  it('keeps the tender event log append-only', async () => {
    const event = await prisma().tenderEvent.findFirstOrThrow();
    await expect(prisma().tenderEvent.update({ where: { id: event.id }, data: { amount: '0.01' } })).rejects.toThrow(/append-only/);
  });
});
