// Checkout with store credit first and a card for the rest, against real PostgreSQL and the test
// gateway: the split, a retried checkout that spends and authorizes once, and a cancel that gives
// the credit back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGatewayControl } from '../../../../tools/test-gateway/src/index.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { DomainError } from '../../src/kernel/domain-error.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { placeOrder, type PlaceOrderInput } from '../../src/flows/place-order.ts';
import { checkout as checkoutInSteps } from '../../src/flows/checkout.ts';
import { cancelOrder } from '../../src/flows/order-cancellation.ts';
import {
  customerStoreCreditAccount,
  findGiftCard,
  issueGiftCard,
  issueStoreCredit,
  storeCreditBalance,
  storeCreditKeys,
} from '../../src/store-credit/store-credit.ts';
import { tenderKeys } from '../../src/tenders/tenders.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, type Catalog, type Commerce } from '../support/commerce.ts';

let shop: GatewayCommerce;
let commerce: Commerce;
let catalog: Catalog;
let control: TestGatewayControl;
let deps: DomainDeps;

beforeAll(async () => {
  shop = await openGatewayCommerce('store_credit_checkout', 'scc');
  ({ commerce, catalog, control, deps } = shop);
});

afterAll(async () => {
  await shop?.close();
});

const prisma = () => commerce.platform.database.prisma;

interface Shopper {
  readonly customerId: bigint;
  readonly accountId: bigint;
  readonly cartId: bigint;
}

/** A customer holding `credit` EUR of store credit, with a cart of 2 × 19.90 (39.80). */
async function shopperWith(name: string, credit: string): Promise<Shopper> {
  const productId = await catalog.product(name, '19.90', 10);
  const customer = await prisma().customer.create({
    data: { channelId: catalog.channelId, email: `${name}@example.com`, passwordHash: 'scrypt$unused' },
  });
  return commerce.transaction(async (tx) => {
    await issueStoreCredit(tx, commerce.deps, {
      customerId: customer.id,
      currency: 'EUR',
      amount: credit,
      note: 'goodwill',
      idempotencyKey: `issue:${name}`,
    });
    const account = await customerStoreCreditAccount(tx, customer.id, 'EUR');
    const shopper = { customerId: customer.id };
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId, quantity: 2 });
    return { customerId: customer.id, accountId: account.id, cartId: cart.id };
  });
}

/** How a checkout pays: store credit unless told otherwise, then a gift card and a card when given. */
interface Payment {
  readonly card?: string;
  readonly giftCardCode?: string;
  readonly useStoreCredit?: boolean;
}

const orderInput = (
  shopper: Shopper,
  idempotencyKey: string,
  { card, giftCardCode, useStoreCredit = true }: Payment = {},
): PlaceOrderInput => ({
  cartId: shopper.cartId,
  shopper: { customerId: shopper.customerId },
  email: 'ada@example.com',
  billingAddress: ADDRESS,
  shippingAddress: ADDRESS,
  idempotencyKey,
  useStoreCredit,
  giftCardCode,
  card: card === undefined ? undefined : { token: card },
});

const checkout = (shopper: Shopper, idempotencyKey: string, payment?: Payment) =>
  checkoutInSteps(commerce.transaction, deps, orderInput(shopper, idempotencyKey, payment));

const balance = async (accountId: bigint) => (await storeCreditBalance(prisma(), accountId)).toFixed(2);
const debits = (accountId: bigint) => prisma().storeCreditEntry.findMany({ where: { accountId, kind: 'DEBIT' } });
const tenders = async (orderId: bigint) =>
  (await prisma().paymentTender.findMany({ where: { orderId }, orderBy: { id: 'asc' } })).map((tender) => [
    tender.kind,
    tender.status,
    tender.authorizedAmount.toFixed(2),
    tender.capturedAmount.toFixed(2),
  ]);

describe('checkout with store credit', () => {
  it('spends the store credit first and authorizes the rest on the card, once although the gateway committed and then failed', async () => {
    const shopper = await shopperWith('split', '15.00');
    const key = 'store-credit-split-1';
    await control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'authorize', cardToken: 'tok_split' });

    const failed = await checkout(shopper, key, { card: 'tok_split' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(DomainError);
    expect((failed as DomainError).code).toBe('UNAVAILABLE');
    expect(await balance(shopper.accountId)).toBe('15.00');

    const order = await checkout(shopper, key, { card: 'tok_split' });
    const again = await checkout(shopper, key, { card: 'tok_split' });
    expect(again.id).toBe(order.id);
    expect(order.status).toBe('PLACED');
    // Oldest first: the card's tender was authorized for the cart before the order's transaction spent the credit.
    expect(await tenders(order.id)).toEqual([
      ['CARD', 'AUTHORIZED', '24.80', '0.00'],
      ['STORE_CREDIT', 'CAPTURED', '15.00', '15.00'],
    ]);
    expect(await balance(shopper.accountId)).toBe('0.00');
    expect((await debits(shopper.accountId)).map((entry) => [entry.idempotencyKey, entry.amount.toFixed(2), entry.orderId])).toEqual([
      [storeCreditKeys.spend(shopper.cartId, key), '15.00', order.id],
    ]);
    const authorizeKey = tenderKeys.authorize(shopper.cartId, key);
    const operations = (await control.operations()).filter((operation) => operation.idempotencyKey === authorizeKey);
    expect(operations.map((operation) => [operation.kind, operation.amount.amountMinor])).toEqual([['authorize', 2480]]);
    const requests = (await control.requests())
      .filter((request) => request.idempotencyKey === authorizeKey)
      .map((request) => request.outcome);
    expect(requests).toEqual(['executed', 'replayed']);
  });

  it('pays the whole order from store credit on a shop without a gateway, and a cancel credits it back', async () => {
    const shopper = await shopperWith('covered', '50.00');
    const order = await commerce.transaction((tx) => placeOrder(tx, commerce.deps, orderInput(shopper, 'store-credit-covered-1')));

    expect(order.status).toBe('PLACED');
    expect(await tenders(order.id)).toEqual([['STORE_CREDIT', 'CAPTURED', '39.80', '39.80']]);
    expect(await balance(shopper.accountId)).toBe('10.20');

    await commerce.transaction((tx) => cancelOrder(tx, commerce.deps, order.id, 'changed my mind'));
    expect(await tenders(order.id)).toEqual([['STORE_CREDIT', 'REFUNDED', '39.80', '39.80']]);
    expect(await balance(shopper.accountId)).toBe('50.00');
    const credits = await prisma().storeCreditEntry.findMany({
      where: { accountId: shopper.accountId, orderId: order.id, kind: 'CREDIT' },
    });
    expect(credits.map((entry) => [entry.status, entry.amount.toFixed(2)])).toEqual([['POSTED', '39.80']]);
  });

  it('refuses a checkout the store credit does not cover without a card, spending nothing', async () => {
    const shopper = await shopperWith('short', '10.00');
    const refused = await checkout(shopper, 'store-credit-short-1').catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'card' } });
    expect((refused as DomainError).message).toBe('store credit and gift cards cover 10.00 of the 39.80 EUR: pay the rest by card');
    expect(await balance(shopper.accountId)).toBe('10.00');
    expect(await debits(shopper.accountId)).toEqual([]);
  });

  it('takes a gift card first, then store credit, then the card, and refuses an unknown or used-up code', async () => {
    const shopper = await shopperWith('gifted', '5.00');
    const issue = () =>
      commerce.transaction((tx) =>
        issueGiftCard(tx, commerce.deps, { currency: 'EUR', amount: '20.00', note: 'birthday', idempotencyKey: 'gift:gifted' }),
      );
    const card = await issue();
    expect((await issue()).id).toBe(card.id);
    expect(card.code).toMatch(/^[A-Z2-7]{16}$/);
    const typed = `${card.code.slice(0, 8).toLowerCase()}-${card.code.slice(8)}`;
    expect((await findGiftCard(prisma(), typed))?.id).toBe(card.id);

    const pay = (idempotencyKey: string, giftCardCode: string) => checkout(shopper, idempotencyKey, { giftCardCode, card: 'tok_gifted' });
    expect(await pay('gift-unknown-1', 'AAAABBBBCCCCDDDD').catch((error: unknown) => error)).toMatchObject({
      code: 'NOT_FOUND',
      details: { field: 'giftCardCode' },
    });
    const order = await pay('gift-order-1', typed);
    expect((await pay('gift-order-1', typed)).id).toBe(order.id);

    expect(await tenders(order.id)).toEqual([
      ['CARD', 'AUTHORIZED', '14.80', '0.00'],
      ['GIFT_CARD', 'CAPTURED', '20.00', '20.00'],
      ['STORE_CREDIT', 'CAPTURED', '5.00', '5.00'],
    ]);
    expect(await balance(card.id)).toBe('0.00');
    expect(await balance(shopper.accountId)).toBe('0.00');

    const other = await shopperWith('gifted-again', '0.01');
    const usedUp = await checkout(other, 'gift-order-2', { useStoreCredit: false, giftCardCode: typed, card: 'tok_gifted' }).catch(
      (error: unknown) => error,
    );
    expect(usedUp).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'giftCardCode' } });
  });
});
