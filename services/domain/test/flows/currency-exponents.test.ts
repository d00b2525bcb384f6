// Amounts at each currency's ISO 4217 exponent, against real PostgreSQL and the test gateway: JPY (no
// decimals), EUR (2) and KWD (3) from the price through the cart's tax and shipping, the card's
// authorization in minor units, its capture and partial refunds; and the refusal of amounts with
// more decimals than their currency has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { createChannel, createProduct } from '../../src/catalog/catalog-admin.ts';
import { updateProduct } from '../../src/catalog/catalog-changes.ts';
import { setStockOnHand } from '../../src/inventory/stock.ts';
import { money, moneyString, exponentOf, roundMoney } from '../../src/kernel/money.ts';
import { checkout } from '../../src/flows/checkout.ts';
import { fulfilOrder } from '../../src/orders/order-transitions.ts';
import { executeRefund } from '../../src/refunds/refund-execution.ts';
import { requestRefund } from '../../src/refunds/refund-requests.ts';
import { issueStoreCredit } from '../../src/store-credit/store-credit.ts';
import { captureOrderTenders } from '../../src/tenders/tenders.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, refusal, type Catalog, type Commerce } from '../support/commerce.ts';

describe('roundMoney and moneyString', () => {
  it('round half up at exponent 0 (JPY), 2 (EUR) and 3 (KWD), and render that many decimals', () => {
    const rounded = (value: string, currency: string) => roundMoney(money(value), currency).toFixed();
    expect([rounded('1191.5', 'JPY'), rounded('1191.49', 'JPY'), rounded('-0.5', 'JPY')]).toEqual(['1192', '1191', '-1']);
    expect([rounded('1.005', 'EUR'), rounded('1.0049', 'EUR')]).toEqual(['1.01', '1']);
    expect([rounded('1.0005', 'KWD'), rounded('1.00049', 'KWD')]).toEqual(['1.001', '1']);
    expect([moneyString(money('1191.19'), 'JPY'), moneyString(money('19.9'), 'EUR'), moneyString(money('12.345'), 'KWD')]).toEqual([
      '1191',
      '19.90',
      '12.345',
    ]);
  });

  it('takes the ISO 4217 exponent where Intl (CLDR) shows other decimals', () => {
    expect([exponentOf('JPY'), exponentOf('EUR'), exponentOf('KWD'), exponentOf('BHD'), exponentOf('HUF'), exponentOf('IQD')]).toEqual([
      0, 2, 3, 3, 2, 3,
    ]);
  });
});

let shop: GatewayCommerce;
let commerce: Commerce;
let catalog: Catalog;
let deps: DomainDeps;
let staffUserId: bigint;
const channels = new Map<string, bigint>();

beforeAll(async () => {
  shop = await openGatewayCommerce('currency_exponents', 'cx');
  ({ commerce, catalog, deps } = shop);
  const prisma = commerce.platform.database.prisma;
  staffUserId = (await prisma.staffUser.create({ data: { email: 'cx@example.com', passwordHash: 'scrypt$unused', name: 'Refunder' } })).id;
  await prisma.setting.create({ data: { key: 'checkout', value: { taxRate: '0.19', shippingFlatRate: '4.90' } } });
  channels.set('EUR', catalog.channelId);
  for (const currency of ['JPY', 'KWD']) {
    const channel = await commerce.transaction((tx) =>
      createChannel(tx, { code: `cx-${currency.toLowerCase()}`, name: currency, defaultCurrency: currency }),
    );
    channels.set(currency, channel.id);
  }
});

afterAll(async () => {
  await shop?.close();
});

const channelOf = (currency: string): bigint => channels.get(currency) ?? 0n;

const priced = (sku: string, price: string, currency: string) =>
  commerce.transaction(async (tx) => {
    const product = await createProduct(tx, deps, {
      sku: `cx-${sku}`,
      name: sku,
      slug: `cx-${sku}`,
      price,
      currency,
      channelIds: [channelOf(currency)],
    });
    await setStockOnHand(tx, deps, { productId: product.id, locationId: catalog.locationId, onHand: 10, reason: 'restock' });
    return product;
  });

/** A guest's cart of `quantity` units priced `price` in the currency's channel; answers it as the cart view shows it. */
async function cartOf(name: string, price: string, currency: string, quantity: number) {
  const product = await priced(name, price, currency);
  const shopper = { sessionId: `s-${name}` };
  const view = await commerce.transaction(async (tx) => {
    const cart = await createCart(tx, deps, { channelId: channelOf(currency), shopper });
    return addCartLine(tx, deps, { cartId: cart.id, shopper, productId: product.id, quantity });
  });
  return { view, shopper };
}

/** The cart paid by card at the test gateway, fulfilled and captured. */
async function paidByCard(name: string, cart: Awaited<ReturnType<typeof cartOf>>) {
  const order = await checkout(commerce.transaction, deps, {
    cartId: cart.view.id,
    shopper: cart.shopper,
    email: `${name}@example.com`,
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    idempotencyKey: `order:${name}`,
    card: { token: `tok_${name}` },
  });
  await shop.inGatewayTransaction(async (tx) => {
    await fulfilOrder(tx, deps, order.id);
    await captureOrderTenders(tx, deps, order.id);
  });
  return order;
}

/** The amounts of the gateway's operations of a kind in a currency (one order per currency here). */
const gatewayAmounts = async (kind: string, currency: string) =>
  (await shop.control.operations())
    .filter((operation) => operation.kind === kind && operation.amount.currency === currency)
    .map((operation) => operation.amount);

const refund = (orderId: bigint, amount: string, idempotencyKey: string) =>
  commerce.transaction((tx) =>
    requestRefund(tx, deps, { orderId, amount, reason: 'returned', idempotencyKey, source: { kind: 'STAFF', staffUserId } }),
  );

async function refundedAtGateway(orderId: bigint, amount: string, idempotencyKey: string) {
  const request = await refund(orderId, amount, idempotencyKey);
  for (const part of request.refunds) await shop.inGatewayTransaction((tx) => executeRefund(tx, deps, BigInt(part.id)));
  return request;
}

describe('checkout and refund at the currency exponent', () => {
  it('JPY: shipping and tax in whole yen, the card authorized, captured and refunded in yen, 0.5 JPY refused', async () => {
    // 1000 + shipping 4.90 → 5; tax 1005 × 0.19 = 190.95 → 191; total 1196 (not 1195.83).
    const cart = await cartOf('yen', '1000', 'JPY', 1);
    expect(cart.view).toMatchObject({ currency: 'JPY', subtotal: '1000', shipping: '5', tax: '191', total: '1196' });
    const order = await paidByCard('yen', cart);
    expect(order.total.toFixed()).toBe('1196');
    expect(await gatewayAmounts('authorize', 'JPY')).toEqual([{ amountMinor: 1196, currency: 'JPY' }]);
    expect(await gatewayAmounts('capture', 'JPY')).toEqual([{ amountMinor: 1196, currency: 'JPY' }]);

    const half = await refusal(refund(order.id, '0.5', 'cx-yen-half'));
    expect(half).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'amount must be an amount in JPY with no decimals, e.g. "20", not "0.5"',
      details: { field: 'amount' },
    });
    const partial = await refundedAtGateway(order.id, '100', 'cx-yen-100');
    expect(partial).toMatchObject({ amount: '100', currency: 'JPY', refunds: [{ amount: '100' }] });
    expect(await gatewayAmounts('refund', 'JPY')).toEqual([{ amountMinor: 100, currency: 'JPY' }]);
  });

  it('EUR: tax rounded half up to cents, authorized and refunded in cents', async () => {
    // 2 × 19.90 + 4.90 = 44.70; tax 8.493 → 8.49; total 53.19.
    const cart = await cartOf('euro', '19.90', 'EUR', 2);
    expect(cart.view).toMatchObject({ subtotal: '39.80', shipping: '4.90', tax: '8.49', total: '53.19' });
    const order = await paidByCard('euro', cart);
    expect(await gatewayAmounts('authorize', 'EUR')).toEqual([{ amountMinor: 5319, currency: 'EUR' }]);

    expect(await refusal(refund(order.id, '10.005', 'cx-euro-mills'))).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'amount must be an amount in EUR with at most 2 decimals, e.g. "19.90", not "10.005"',
    });
    await refundedAtGateway(order.id, '10.01', 'cx-euro-1001');
    expect(await gatewayAmounts('refund', 'EUR')).toEqual([{ amountMinor: 1001, currency: 'EUR' }]);
  });

  it('KWD: prices, tax and totals in fils (3 decimals), authorized, captured and refunded in fils', async () => {
    // 12.345 + 4.900 = 17.245; tax 3.27655 → 3.277; total 20.522.
    const cart = await cartOf('dinar', '12.345', 'KWD', 1);
    expect(cart.view).toMatchObject({ currency: 'KWD', subtotal: '12.345', shipping: '4.900', tax: '3.277', total: '20.522' });
    const order = await paidByCard('dinar', cart);
    expect(order.total.toFixed()).toBe('20.522');
    expect(await gatewayAmounts('authorize', 'KWD')).toEqual([{ amountMinor: 20522, currency: 'KWD' }]);
    expect(await gatewayAmounts('capture', 'KWD')).toEqual([{ amountMinor: 20522, currency: 'KWD' }]);

    const partial = await refundedAtGateway(order.id, '1.005', 'cx-dinar-1005');
    expect(partial).toMatchObject({ amount: '1.005', refunds: [{ amount: '1.005' }] });
    expect(await gatewayAmounts('refund', 'KWD')).toEqual([{ amountMinor: 1005, currency: 'KWD' }]);
    const tender = await commerce.platform.database.prisma.paymentTender.findFirstOrThrow({ where: { orderId: order.id } });
    expect([tender.capturedAmount.toFixed(), tender.refundedAmount.toFixed()]).toEqual(['20.522', '1.005']);
  });
});

describe('amounts with more decimals than their currency', () => {
  it('refuses a price, naming the field and the currency, on creation and on update', async () => {
    expect(await refusal(priced('yen-cents', '19.90', 'JPY'))).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'price must be an amount in JPY with no decimals, e.g. "20", not "19.90"',
      details: { field: 'price' },
    });
    expect(await refusal(priced('dinar-tenth', '1.2345', 'KWD'))).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'price' } });
    const euro = await priced('to-yen', '19.90', 'EUR');
    const update = (patch: { price?: string; currency?: string }) => commerce.transaction((tx) => updateProduct(tx, deps, euro.id, patch));
    expect(await refusal(update({ currency: 'JPY' }))).toMatchObject({
      message: 'price must be an amount in JPY with no decimals, e.g. "20", not "19.9"',
    });
    expect(await refusal(update({ price: '19.999' }))).toMatchObject({ details: { field: 'price' } });
    expect((await update({ price: '2000', currency: 'JPY' })).price.toFixed()).toBe('2000');
  });

  it('refuses store credit of 0.5 JPY and a currency with more decimals than the shop stores', async () => {
    const customer = await commerce.platform.database.prisma.customer.create({
      data: { channelId: channelOf('JPY'), email: 'yen-credit@example.com', passwordHash: 'scrypt$unused' },
    });
    const issue = (amount: string, currency: string) =>
      commerce.transaction((tx) =>
        issueStoreCredit(tx, deps, {
          customerId: customer.id,
          currency,
          amount,
          note: 'goodwill',
          idempotencyKey: `cx-credit-${currency}-${amount}`,
        }),
      );
    expect(await refusal(issue('0.5', 'JPY'))).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'amount' } });
    expect(await refusal(issue('1', 'CLF'))).toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'currency CLF has 4 decimals; the shop stores amounts with at most 3',
    });
    expect((await issue('500', 'JPY')).amount.toFixed()).toBe('500');
  });
});
