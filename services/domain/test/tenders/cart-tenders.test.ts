// Cart tenders against the real test gateway: the card is authorized for the cart before the order's
// transaction, a failed order transaction leaves the tender for the same request's retry, and a cart
// changed since the authorization is refused and its authorization voided, as the gateway logs show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGatewayControl } from '../../../../tools/test-gateway/src/index.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { addCartLine, setCartLineQuantity } from '../../src/carts/carts.ts';
import { deleteExpiredCarts } from '../../src/carts/expired-carts.ts';
import { setStockOnHand } from '../../src/inventory/stock.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { STALE_CARD_AUTHORIZATION } from '../../src/tenders/cart-tenders.ts';
import { tenderKeys } from '../../src/tenders/tenders.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, refusal, type Catalog, type Commerce } from '../support/commerce.ts';

let shop: GatewayCommerce;
let commerce: Commerce;
let catalog: Catalog;
let control: TestGatewayControl;
let deps: DomainDeps;
let guestCart: GatewayCommerce['guestCart'];
let payByCard: GatewayCommerce['payByCard'];

beforeAll(async () => {
  shop = await openGatewayCommerce('cart_tenders', 'ct');
  ({ commerce, catalog, control, deps, guestCart, payByCard } = shop);
});

afterAll(async () => {
  await shop?.close();
});

const prisma = () => commerce.platform.database.prisma;

/** What the gateway logged for a tender: kind, key and outcome of each request under its authorization's key or its void's, in order. */
async function gatewayLog(tender: { id: bigint; idempotencyKey: string }): Promise<string[]> {
  const keys = [tender.idempotencyKey, tenderKeys.void(tender.id)];
  return (await control.requests())
    .filter((request) => request.idempotencyKey !== null && keys.includes(request.idempotencyKey))
    .map((request) => `${request.kind}:${request.idempotencyKey}:${request.outcome}`);
}

const restock = (productId: bigint, onHand: number) =>
  commerce.transaction((tx) => setStockOnHand(tx, commerce.deps, { productId, locationId: catalog.locationId, onHand, reason: 'restock' }));

describe('cart tenders', () => {
  it('authorizes the card for the cart before the order; a failed order transaction leaves the tender, and the retry places the order with it', async () => {
    const cart = await guestCart('short-tee', { onHand: 1 });
    const key = 'cart-tender-retry-1';
    const refused = await refusal(payByCard(cart, key, 'tok_cart_retry'));
    expect(refused).toMatchObject({ code: 'BAD_USER_INPUT', message: 'not enough stock for ct-short-tee: 2 requested, 1 available' });

    const tender = await prisma().paymentTender.findUniqueOrThrow({
      where: { idempotencyKey: tenderKeys.authorize(cart.cartId, key) },
      include: { events: true },
    });
    expect(tender).toMatchObject({ kind: 'CARD', status: 'AUTHORIZED', cartId: cart.cartId, orderId: null });
    expect(tender.authorizedAmount.toFixed(2)).toBe('39.80');
    expect(tender.holdExpiresAt?.getTime()).toBe(commerce.deps.now().getTime() + 30 * 60_000);
    expect(tender.events.map((event) => event.kind)).toEqual(['AUTHORIZED']);
    expect(await prisma().order.count({ where: { cartId: cart.cartId } })).toBe(0);

    await restock(cart.productId, 5);
    const order = await payByCard(cart, key, 'tok_cart_retry');
    expect(order.status).toBe('PLACED');
    expect(await prisma().paymentTender.findMany({ where: { orderId: order.id }, select: { id: true, status: true } })).toEqual([
      { id: tender.id, status: 'AUTHORIZED' },
    ]);
    // The retry found the tender: the gateway authorized once and was not asked again.
    expect(await gatewayLog(tender)).toEqual([`authorize:${tenderKeys.authorize(cart.cartId, key)}:executed`]);
  });

  it('places one order with one tender when the same checkout is sent twice at once', async () => {
    const cart = await guestCart('twice-tee', { onHand: 5 });
    const key = 'cart-tender-twice-1';
    const [first, second] = await Promise.all([payByCard(cart, key, 'tok_cart_twice'), payByCard(cart, key, 'tok_cart_twice')]);
    expect(second.id).toBe(first.id);
    const tenders = await prisma().paymentTender.findMany({ where: { cartId: cart.cartId }, include: { events: true } });
    expect(tenders.map((tender) => [tender.orderId, tender.status, tender.events.map((event) => event.kind)])).toEqual([
      [first.id, 'AUTHORIZED', ['AUTHORIZED']],
    ]);
    const authorizations = (await control.operations()).filter(
      (operation) => operation.idempotencyKey === tenderKeys.authorize(cart.cartId, key),
    );
    expect(authorizations).toHaveLength(1);
  });

  it('refuses a cart changed after the authorization, voids that authorization once, and pays under a new key', async () => {
    const cart = await guestCart('changed-tee', { onHand: 1 });
    const first = 'cart-tender-changed-1';
    await refusal(payByCard(cart, first, 'tok_cart_changed'));
    const tender = await prisma().paymentTender.findUniqueOrThrow({ where: { idempotencyKey: tenderKeys.authorize(cart.cartId, first) } });
    // One unit instead of two: the 39.80 authorized no longer pays this cart.
    await commerce.transaction((tx) =>
      setCartLineQuantity(tx, commerce.deps, {
        cartId: cart.cartId,
        shopper: { sessionId: cart.sessionId },
        productId: cart.productId,
        quantity: 1,
      }),
    );

    const stale = await refusal(payByCard(cart, first, 'tok_cart_changed'));
    expect(stale).toMatchObject({
      code: 'CONFLICT',
      details: { field: 'idempotencyKey', reason: STALE_CARD_AUTHORIZATION, tenderId: tender.id.toString() },
    });
    expect(stale.message).toBe(
      'the cart changed after the card was authorized for it (its lines, prices or total are not those the card was authorized for): that authorization is voided; send the checkout again with a new idempotencyKey',
    );
    expect(await prisma().paymentTender.findUniqueOrThrow({ where: { id: tender.id } })).toMatchObject({ status: 'VOIDED', orderId: null });
    expect(await prisma().order.count({ where: { cartId: cart.cartId } })).toBe(0);
    // The same key again: the voided authorization is not used, and nothing reaches the gateway.
    const voided = await refusal(payByCard(cart, first, 'tok_cart_changed'));
    expect(voided).toMatchObject({ code: 'CONFLICT', details: { field: 'idempotencyKey' } });
    expect(voided.message).toMatch(/^this checkout's card authorization was voided/);
    expect(await gatewayLog(tender)).toEqual([
      `authorize:${tenderKeys.authorize(cart.cartId, first)}:executed`,
      `void:${tenderKeys.void(tender.id)}:executed`,
    ]);

    const order = await payByCard(cart, 'cart-tender-changed-2', 'tok_cart_changed');
    expect(order.total.toFixed(2)).toBe('19.90');
    const paying = await prisma().paymentTender.findFirstOrThrow({ where: { orderId: order.id } });
    expect(paying.authorizedAmount.toFixed(2)).toBe('19.90');
    expect(paying.idempotencyKey).toBe(tenderKeys.authorize(cart.cartId, 'cart-tender-changed-2'));
  });

  it('refuses a tender whose cart now holds other lines of the same total', async () => {
    const cart = await guestCart('swap-tee', { onHand: 1 });
    const key = 'cart-tender-swap-1';
    await refusal(payByCard(cart, key, 'tok_cart_swap'));
    // Another product of the same price instead: the total is the same, the content is not.
    const other = await catalog.product('swap-hoodie', '19.90', 5);
    await commerce.transaction(async (tx) => {
      await setCartLineQuantity(tx, commerce.deps, {
        cartId: cart.cartId,
        shopper: { sessionId: cart.sessionId },
        productId: cart.productId,
        quantity: 0,
      });
      await addCartLine(tx, commerce.deps, { cartId: cart.cartId, shopper: { sessionId: cart.sessionId }, productId: other, quantity: 2 });
    });
    // The order's transaction alone (as a caller holding the tender would run it): refused on the digest.
    const stale = await refusal(
      commerce.transaction((tx) =>
        placeOrder(tx, deps, {
          cartId: cart.cartId,
          shopper: { sessionId: cart.sessionId },
          email: 'ada@example.com',
          billingAddress: ADDRESS,
          shippingAddress: ADDRESS,
          idempotencyKey: key,
          card: { token: 'tok_cart_swap' },
        }),
      ),
    );
    expect(stale).toMatchObject({ code: 'CONFLICT', details: { reason: STALE_CARD_AUTHORIZATION } });
    expect(await prisma().order.count({ where: { cartId: cart.cartId } })).toBe(0);
  });

  it('keeps an expired cart while it has a live tender, and deletes it once the tender is voided', async () => {
    const cart = await guestCart('expired-cart-tee', { onHand: 1 });
    await refusal(payByCard(cart, 'cart-tender-expired-1', 'tok_cart_expired'));
    const tender = await prisma().paymentTender.findFirstOrThrow({ where: { cartId: cart.cartId } });
    const asOf = new Date(commerce.deps.now().getTime() + 400 * 24 * 60 * 60 * 1000);

    await commerce.transaction((tx) => deleteExpiredCarts(tx, { asOf, limit: 100 }));
    expect(await prisma().cart.count({ where: { id: cart.cartId } })).toBe(1);

    // The stale path voids it: the checkout of the cart changed since.
    await commerce.transaction((tx) =>
      setCartLineQuantity(tx, commerce.deps, {
        cartId: cart.cartId,
        shopper: { sessionId: cart.sessionId },
        productId: cart.productId,
        quantity: 1,
      }),
    );
    await refusal(payByCard(cart, 'cart-tender-expired-1', 'tok_cart_expired'));
    expect(await prisma().paymentTender.findUniqueOrThrow({ where: { id: tender.id } })).toMatchObject({ status: 'VOIDED' });
    await commerce.transaction((tx) => deleteExpiredCarts(tx, { asOf, limit: 100 }));
    expect(await prisma().cart.count({ where: { id: cart.cartId } })).toBe(0);
    expect(await prisma().paymentTender.findUniqueOrThrow({ where: { id: tender.id } })).toMatchObject({ status: 'VOIDED', cartId: null });
  });
});
