// Every path that cancels an order gives its tenders back, against real PostgreSQL and the test gateway:
// a business order paid with store credit, a gift card and a card, cancelled by the approval's expiry,
// the payment deadline, the sweep of stale holds and staff. Each path runs twice and credits once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGatewayControl } from '../../../../tools/test-gateway/src/index.ts';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { checkout } from '../../src/flows/checkout.ts';
import { expireStaleReservations, expireUnpaidOrder } from '../../src/flows/order-expiry.ts';
import type { OrderWithLines } from '../../src/orders/order-events.ts';
import { approveOrder } from '../../src/orders/order-transitions.ts';
import { voidExpiringAuthorizations } from '../../src/flows/expiring-authorizations.ts';
import {
  customerStoreCreditAccount,
  issueGiftCard,
  issueStoreCredit,
  storeCreditBalance,
  storeCreditKeys,
} from '../../src/store-credit/store-credit.ts';
import { tenderKeys } from '../../src/tenders/tenders.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, refusal, type Catalog, type Commerce } from '../support/commerce.ts';
import { cancelOrder } from '../../src/flows/order-cancellation.ts';

let shop: GatewayCommerce;
let commerce: Commerce;
let catalog: Catalog;
let control: TestGatewayControl;
let deps: DomainDeps;

/** Placement, on the domain's clock and the gateway's: the card's authorization lapses 7 days later. */
const PLACED_AT = new Date('2026-11-23T10:00:00.000Z');
const hoursAfterPlacement = (hours: number) => new Date(PLACED_AT.getTime() + hours * 60 * 60 * 1000);
/** Past the approval window (72 hours), yet days before the card's authorization comes within the void sweep's 48 hours' margin. */
const APPROVAL_EXPIRED = hoursAfterPlacement(73);
const RUN = { workflow: 'CancelReleasesTendersTest', workflowId: 'cancel-releases-tenders', runId: 'run-1' };

beforeAll(async () => {
  shop = await openGatewayCommerce('cancel_releases_tenders', 'crt');
  ({ commerce, catalog, control, deps } = shop);
  await control.setClock(PLACED_AT);
});

afterAll(async () => {
  await shop?.close();
});

const prisma = () => commerce.platform.database.prisma;

interface PaidOrder {
  readonly order: OrderWithLines;
  readonly storeCreditAccountId: bigint;
  readonly giftCardId: bigint;
}

/**
 * A business customer's order of 2 × 19.90 (39.80) waiting for approval: 5.00 from a gift card, 10.00
 * from their store credit (both taken at checkout) and 24.80 authorized on a card.
 */
async function businessOrderPaidThreeWays(name: string): Promise<PaidOrder> {
  commerce.setNow(PLACED_AT);
  const productId = await catalog.product(name, '19.90', 10);
  const customer = await prisma().customer.create({
    data: {
      channelId: catalog.channelId,
      email: `${name}@corp.example`,
      passwordHash: 'scrypt$unused',
      isBusiness: true,
      approvalStatus: 'APPROVED',
    },
  });
  const shopper = { customerId: customer.id };
  const { cartId, storeCreditAccountId, giftCard } = await commerce.transaction(async (tx) => {
    await issueStoreCredit(tx, commerce.deps, {
      customerId: customer.id,
      currency: 'EUR',
      amount: '10.00',
      note: 'goodwill',
      idempotencyKey: `issue:${name}`,
    });
    const card = await issueGiftCard(tx, commerce.deps, {
      currency: 'EUR',
      amount: '5.00',
      note: 'birthday',
      idempotencyKey: `gift:${name}`,
    });
    const cart = await createCart(tx, commerce.deps, { channelId: catalog.channelId, shopper });
    await addCartLine(tx, commerce.deps, { cartId: cart.id, shopper, productId, quantity: 2 });
    return { cartId: cart.id, storeCreditAccountId: (await customerStoreCreditAccount(tx, customer.id, 'EUR')).id, giftCard: card };
  });
  const order = await checkout(commerce.transaction, deps, {
    cartId,
    shopper,
    email: customer.email,
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    idempotencyKey: `order:${name}`,
    useStoreCredit: true,
    giftCardCode: giftCard.code,
    card: { token: `tok_${name}` },
  });
  expect(order.status).toBe('AWAITING_APPROVAL');
  expect(await tenders(order.id)).toEqual([
    ['CARD', 'AUTHORIZED', '24.80'],
    ['GIFT_CARD', 'CAPTURED', '5.00'],
    ['STORE_CREDIT', 'CAPTURED', '10.00'],
  ]);
  expect(await balances({ order, storeCreditAccountId, giftCardId: giftCard.id })).toEqual({ storeCredit: '0.00', giftCard: '0.00' });
  return { order, storeCreditAccountId, giftCardId: giftCard.id };
}

const tenders = async (orderId: bigint) =>
  (await prisma().paymentTender.findMany({ where: { orderId }, orderBy: { id: 'asc' } })).map((tender) => [
    tender.kind,
    tender.status,
    tender.authorizedAmount.toFixed(2),
  ]);

const balances = async (paid: PaidOrder) => ({
  storeCredit: (await storeCreditBalance(prisma(), paid.storeCreditAccountId)).toFixed(2),
  giftCard: (await storeCreditBalance(prisma(), paid.giftCardId)).toFixed(2),
});

/** The order's credits back: one per store credit or gift card tender, under `credit:cancel:{tenderId}`. */
async function creditsBack(paid: PaidOrder) {
  const credits = await prisma().storeCreditEntry.findMany({ where: { orderId: paid.order.id, kind: 'CREDIT' }, orderBy: { id: 'asc' } });
  return credits.map((entry) => [entry.accountId, entry.status, entry.amount.toFixed(2), entry.idempotencyKey]);
}

async function expectedCreditsBack(paid: PaidOrder) {
  const taken = await prisma().paymentTender.findMany({ where: { orderId: paid.order.id, kind: { not: 'CARD' } }, orderBy: { id: 'asc' } });
  const [giftCard, storeCredit] = taken;
  return [
    [paid.giftCardId, 'POSTED', '5.00', storeCreditKeys.cancelCredit(giftCard?.id ?? 0n)],
    [paid.storeCreditAccountId, 'POSTED', '10.00', storeCreditKeys.cancelCredit(storeCredit?.id ?? 0n)],
  ];
}

/** The order's tenders once cancelled: the gift card and store credit given back, the card as given. */
const releasedTenders = (card: 'AUTHORIZED' | 'VOIDED') => [
  ['CARD', card, '24.80'],
  ['GIFT_CARD', 'REFUNDED', '5.00'],
  ['STORE_CREDIT', 'REFUNDED', '10.00'],
];

const cardTender = (orderId: bigint) => prisma().paymentTender.findFirstOrThrow({ where: { orderId, kind: 'CARD' } });

/** What the gateway logged under the card tender's void key. */
async function voidsAtGateway(orderId: bigint) {
  const key = tenderKeys.void((await cardTender(orderId)).id);
  return (await control.requests())
    .filter((request) => request.idempotencyKey === key)
    .map((request) => `${request.kind}:${request.outcome}`);
}

/** The cancellation's own events: its status change, and one ledger entry per account credited back. */
async function cancellationEvents(paid: PaidOrder, after: bigint) {
  const accounts = new Set([paid.storeCreditAccountId.toString(), paid.giftCardId.toString()]);
  return (await commerce.events(after))
    .filter((event) => event.payload.order_id === paid.order.id.toString() || accounts.has(String(event.payload.account_id)))
    .filter((event) => event.name !== 'shop.inventory.stock_changed.v1')
    .map((event) => [
      event.name,
      event.payload.to ?? `${String(event.payload.movement ?? event.payload.entry_kind)} ${String(event.payload.amount)}`,
    ]);
}

const CANCELLATION_EVENTS = [
  ['order.status_changed', 'CANCELLED'],
  ['shop.orders.status_changed.v1', 'CANCELLED'],
  ['shop.payments.store_credit_moved.v1', 'CREDIT 5.00'],
  ['shop.payments.store_credit_moved.v1', 'CREDIT 10.00'],
];

/** Runs an expiry twice with the domain's clock at `at`; answers the cancellation's events. */
async function expiredTwice(paid: PaidOrder, at: Date, expire: () => Promise<void>) {
  const before = await commerce.lastEventId();
  commerce.setNow(at);
  await expire();
  await expire();
  return cancellationEvents(paid, before);
}

const expireUnpaid = (paid: PaidOrder, asOf: Date) =>
  commerce.transaction((tx) => expireUnpaidOrder(tx, commerce.deps, paid.order.id, asOf));

/**
 * An expiry cancels without the gateway: the credit is back once, the card's authorization is left to
 * the sweep of expiring authorizations, which voids it on its next run (twice: one void at the gateway).
 */
async function expectCancelledByExpiry(paid: PaidOrder, events: unknown[][], reason: string) {
  expect(await prisma().order.findUniqueOrThrow({ where: { id: paid.order.id } })).toMatchObject({
    status: 'CANCELLED',
    cancelReason: reason,
  });
  expect(events).toEqual(CANCELLATION_EVENTS);
  expect(await balances(paid)).toEqual({ storeCredit: '10.00', giftCard: '5.00' });
  expect(await creditsBack(paid)).toEqual(await expectedCreditsBack(paid));
  expect(await tenders(paid.order.id)).toEqual(releasedTenders('AUTHORIZED'));
  expect(await voidsAtGateway(paid.order.id)).toEqual([]);

  const sweep = () => voidExpiringAuthorizations(commerce.transaction, deps, { asOf: APPROVAL_EXPIRED, limit: 100, run: RUN });
  expect((await sweep()).voided).toBeGreaterThanOrEqual(1);
  await sweep();
  expect(await tenders(paid.order.id)).toEqual(releasedTenders('VOIDED'));
  expect(await voidsAtGateway(paid.order.id)).toEqual(['void:executed']);
  expect(await balances(paid)).toEqual({ storeCredit: '10.00', giftCard: '5.00' });
}

describe('cancelling an order gives its tenders back, once', () => {
  it("at the approval expiry (the approval workflow's expireUnpaidOrder): credits back the gift card and store credit, and the sweep voids the card", async () => {
    const paid = await businessOrderPaidThreeWays('approval-expiry');
    const events = await expiredTwice(paid, APPROVAL_EXPIRED, async () =>
      expect(await expireUnpaid(paid, APPROVAL_EXPIRED)).toBe('CANCELLED'),
    );
    await expectCancelledByExpiry(paid, events, 'the stock hold expired before the order was approved');
  });

  it("at the payment deadline of an approved order (the lifecycle's expireUnpaidOrder)", async () => {
    const paid = await businessOrderPaidThreeWays('payment-deadline');
    commerce.setNow(hoursAfterPlacement(1));
    expect((await commerce.transaction((tx) => approveOrder(tx, commerce.deps, paid.order.id))).status).toBe('PENDING_PAYMENT');
    // The payment window (30 minutes) counts from the approval.
    const deadline = new Date(hoursAfterPlacement(1).getTime() + 30 * 60 * 1000);
    expect(await expireUnpaid(paid, new Date(deadline.getTime() - 1000))).toBe('PENDING_PAYMENT');
    expect(await balances(paid)).toEqual({ storeCredit: '0.00', giftCard: '0.00' });

    const events = await expiredTwice(paid, deadline, async () => expect(await expireUnpaid(paid, deadline)).toBe('CANCELLED'));
    await expectCancelledByExpiry(paid, events, 'the stock hold expired before payment');
  });

  it('in the sweep of stale holds (expireStaleReservations)', async () => {
    const paid = await businessOrderPaidThreeWays('stale-hold');
    const swept: bigint[][] = [];
    const events = await expiredTwice(paid, APPROVAL_EXPIRED, async () => {
      swept.push([
        ...(
          await commerce.transaction((tx) => expireStaleReservations(tx, commerce.deps, { asOf: APPROVAL_EXPIRED, limit: 100, run: RUN }))
        ).cancelledOrderIds,
      ]);
    });
    expect(swept).toEqual([[paid.order.id], []]);
    await expectCancelledByExpiry(paid, events, 'the stock hold expired before the order was approved');
  });

  it('by staff (cancelOrder): credits back the gift card and store credit and voids the card at once; a second cancel is refused', async () => {
    const paid = await businessOrderPaidThreeWays('staff-cancel');
    const before = await commerce.lastEventId();
    await shop.inGatewayTransaction((tx) => cancelOrder(tx, deps, paid.order.id, 'the buyer withdrew it'));
    const again = await refusal(shop.inGatewayTransaction((tx) => cancelOrder(tx, deps, paid.order.id, 'the buyer withdrew it')));
    expect(again.message).toMatch(/cannot go from CANCELLED to CANCELLED/);

    expect(await balances(paid)).toEqual({ storeCredit: '10.00', giftCard: '5.00' });
    expect(await creditsBack(paid)).toEqual(await expectedCreditsBack(paid));
    expect(await tenders(paid.order.id)).toEqual(releasedTenders('VOIDED'));
    expect(await voidsAtGateway(paid.order.id)).toEqual(['void:executed']);
    const [statusChanged, statusChangedV1, ...credits] = CANCELLATION_EVENTS;
    expect(await cancellationEvents(paid, before)).toEqual([
      statusChanged,
      statusChangedV1,
      ['shop.payments.money_moved.v1', 'VOIDED 24.80'],
      ...credits,
    ]);
  });
});
