import { Registry } from 'prom-client';
import { workflowMetrics } from '@shop/platform';
// The money audit against real PostgreSQL and the test gateway: the books of a normal run pass every
// check, and each check fails on a database broken in its own way (a direct UPDATE or INSERT, rolled
// back after the audit), naming exactly the offending rows. `npm run money:audit` exits 0, 1 or 78.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '@shop/platform';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { placeOrder } from '../../src/flows/place-order.ts';
import { checkout } from '../../src/flows/checkout.ts';
import { fulfilOrder } from '../../src/orders/order-transitions.ts';
import { auditMoney, failedChecks, MONEY_CHECKS, type MoneyCheckResult } from '../../src/money-audit/money-audit.ts';
import { runRefundRequest } from '../../src/flows/refund-execution.ts';
import { requestRefund } from '../../src/refunds/refund-requests.ts';
import { customerStoreCreditAccount, debitStoreCredit, issueGiftCard, issueStoreCredit } from '../../src/store-credit/store-credit.ts';
import { captureOrderTenders } from '../../src/tenders/tenders.ts';
import { createReturnDraft, receiveReturn, submitReturn } from '../../src/returns/returns.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, type Commerce } from '../support/commerce.ts';
import { cancelOrder } from '../../src/flows/order-cancellation.ts';

const metrics = workflowMetrics(new Registry());

const CLI = fileURLToPath(new URL('../../src/money-audit/money-audit-cli.ts', import.meta.url));
const STAFF = 1n;

let shop: GatewayCommerce;
let commerce: Commerce;
let deps: DomainDeps;

/** The ids the corruptions aim at, from the normal run below. */
const books = {
  cardOrderId: 0n,
  cardTenderId: 0n,
  cardRequestId: 0n,
  cardRefundId: 0n,
  creditOrderId: 0n,
  creditTenderId: 0n,
  creditAccountId: 0n,
  returnRequestId: 0n,
  cancelledCardTenderId: 0n,
  placedOrderId: 0n,
  placedCreditTenderId: 0n,
  placedCardTenderId: 0n,
};

const prisma = () => commerce.platform.database.prisma;
const run = (requestId: bigint) =>
  runRefundRequest(
    { transaction: commerce.transaction, deps, metrics },
    { requestId, run: { workflow: 'RefundExecutionWorkflow', workflowId: `refund-${requestId}`, runId: 'run-1' } },
  );

/** A customer with `credit` EUR of store credit and a cart of 2 × 19.90; answers the customer, its account and the cart. */
async function creditShopper(name: string, credit: string) {
  const productId = await shop.catalog.product(name, '19.90', 10);
  const customer = await prisma().customer.create({
    data: { channelId: shop.catalog.channelId, email: `${name}@example.com`, passwordHash: 'scrypt$unused' },
  });
  const shopper = { customerId: customer.id };
  return commerce.transaction(async (tx) => {
    await issueStoreCredit(tx, deps, {
      customerId: customer.id,
      currency: 'EUR',
      amount: credit,
      note: 'goodwill',
      idempotencyKey: `issue:${name}`,
    });
    const account = await customerStoreCreditAccount(tx, customer.id, 'EUR');
    const cart = await createCart(tx, deps, { channelId: shop.catalog.channelId, shopper });
    await addCartLine(tx, deps, { cartId: cart.id, shopper, productId, quantity: 2 });
    return { customerId: customer.id, accountId: account.id, cartId: cart.id, shopper };
  });
}

const input = (cartId: bigint, shopper: { customerId: bigint }, idempotencyKey: string) => ({
  cartId,
  shopper,
  email: 'ada@example.com',
  billingAddress: ADDRESS,
  shippingAddress: ADDRESS,
  idempotencyKey,
  useStoreCredit: true,
});

beforeAll(async () => {
  shop = await openGatewayCommerce('money_audit', 'ma');
  ({ commerce, deps } = shop);

  // A guest's card order, captured, then partly refunded.
  const cardOrder = await shop.payByCard(await shop.guestCart('card'), 'ma-card-checkout', 'tok_card');
  await shop.inGatewayTransaction(async (tx) => {
    await fulfilOrder(tx, deps, cardOrder.id);
    await captureOrderTenders(tx, deps, cardOrder.id);
  });
  const cardRequest = await commerce.transaction((tx) =>
    requestRefund(tx, deps, {
      orderId: cardOrder.id,
      amount: '10.00',
      reason: 'scratched',
      idempotencyKey: 'ma-refund',
      source: { kind: 'STAFF', staffUserId: STAFF },
    }),
  );
  await run(BigInt(cardRequest.id));

  // A gift card and store credit pay a whole order; one unit comes back, refunded and settled.
  const credit = await creditShopper('credit', '100.00');
  const giftCard = await commerce.transaction((tx) =>
    issueGiftCard(tx, deps, { currency: 'EUR', amount: '15.00', note: 'gift', idempotencyKey: 'ma-gift' }),
  );
  const creditOrder = await commerce.transaction(async (tx) => {
    const placed = await placeOrder(tx, deps, {
      ...input(credit.cartId, credit.shopper, 'ma-credit-checkout'),
      giftCardCode: giftCard.code,
    });
    return fulfilOrder(tx, deps, placed.id);
  });
  const rma = await commerce.transaction(async (tx) => {
    const draft = await createReturnDraft(tx, deps, {
      orderId: creditOrder.id,
      lines: [{ orderLineId: creditOrder.lines[0]?.id ?? 0n, quantity: 1 }],
      reason: 'too big',
      actor: { kind: 'staff', staffUserId: STAFF },
    });
    return submitReturn(tx, deps, draft.id, { kind: 'staff', staffUserId: STAFF });
  });
  const receipt = await commerce.transaction((tx) =>
    receiveReturn(tx, deps, {
      returnId: rma.id,
      lines: [{ orderLineId: creditOrder.lines[0]?.id ?? 0n, quantity: 1 }],
      idempotencyKey: 'ma-receipt',
      staffUserId: STAFF,
    }),
  );
  await run(BigInt(receipt.refund?.id ?? '0'));

  // Store credit and a card pay an order that is cancelled: the credit comes back, the card is voided.
  const cancelled = await creditShopper('cancelled', '10.00');
  const cancelledOrder = await checkout(commerce.transaction, shop.deps, {
    ...input(cancelled.cartId, cancelled.shopper, 'ma-cancelled-checkout'),
    card: { token: 'tok_cancelled' },
  });
  await shop.inGatewayTransaction((tx) => cancelOrder(tx, shop.deps, cancelledOrder.id, 'changed my mind'));

  // Store credit and a card pay an order still to be shipped.
  const placed = await creditShopper('placed', '10.00');
  const placedOrder = await checkout(commerce.transaction, shop.deps, {
    ...input(placed.cartId, placed.shopper, 'ma-placed-checkout'),
    card: { token: 'tok_placed' },
  });

  // A clawback-like debit beyond the balance, held by an overdraft draft.
  const overdrawn = await creditShopper('overdrawn', '5.00');
  await commerce.transaction((tx) =>
    debitStoreCredit(tx, deps, {
      accountId: overdrawn.accountId,
      amount: '8.00',
      note: 'clawback',
      idempotencyKey: 'ma-overdraft',
      overdraft: { reason: 'REFUND_CLAWBACK', expiresAt: new Date('2026-12-30T00:00:00Z') },
    }),
  );

  const tenders = await prisma().paymentTender.findMany({ orderBy: { id: 'asc' } });
  const tenderOf = (orderId: bigint, kind: string) =>
    tenders.find((tender) => tender.orderId === orderId && tender.kind === kind)?.id ?? 0n;
  const cardRefund = await prisma().refund.findFirstOrThrow({ where: { refundRequestId: BigInt(cardRequest.id) } });
  Object.assign(books, {
    cardOrderId: cardOrder.id,
    cardTenderId: tenderOf(cardOrder.id, 'CARD'),
    cardRequestId: BigInt(cardRequest.id),
    cardRefundId: cardRefund.id,
    creditOrderId: creditOrder.id,
    creditTenderId: tenderOf(creditOrder.id, 'STORE_CREDIT'),
    creditAccountId: credit.accountId,
    returnRequestId: BigInt(receipt.refund?.id ?? '0'),
    cancelledCardTenderId: tenderOf(cancelledOrder.id, 'CARD'),
    placedOrderId: placedOrder.id,
    placedCreditTenderId: tenderOf(placedOrder.id, 'STORE_CREDIT'),
    placedCardTenderId: tenderOf(placedOrder.id, 'CARD'),
  });
}, 120_000);

afterAll(async () => {
  await shop?.close();
});

class RolledBack extends Error {}

/** The audit of the books as `corrupt` leaves them, in a transaction rolled back afterwards. */
async function auditAfter(corrupt: (tx: Prisma.TransactionClient) => Promise<unknown>): Promise<MoneyCheckResult[]> {
  let results: MoneyCheckResult[] = [];
  await prisma()
    .$transaction(async (tx) => {
      await corrupt(tx);
      results = await auditMoney(tx);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return results;
}

/** The failed checks, each with the first column of its rows (the offending ids). */
const failures = (results: readonly MoneyCheckResult[]) =>
  failedChecks(results).map(({ check, rows }) => ({ check: check.name, ids: rows.map((row) => Object.values(row)[0]) }));

/** Runs the command as `npm run money:audit` does; resolves with its exit code and output, never rejects. */
async function moneyAudit(env: Record<string, string>, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('the money audit', () => {
  it('passes every check on the books of a normal run (card, gift card and store credit checkouts, a refund, a return, a cancel, an overdraft)', async () => {
    const results = await auditAfter(async () => undefined);
    expect(results.map((result) => result.check.name)).toEqual(MONEY_CHECKS.map((check) => check.name));
    expect(failures(results)).toEqual([]);
    expect(await prisma().returnAuthorization.count({ where: { status: 'REFUNDED' } })).toBe(1);
    expect(await prisma().storeCreditOverdraftDraft.count({ where: { status: 'DRAFT' } })).toBe(1);
  });

  it('tender_refunds_within_capture: names a tender whose refunds under way would give back more than it captured', async () => {
    const results = await auditAfter(async (tx) => {
      const request = await tx.refundRequest.create({
        data: {
          orderId: books.cardOrderId,
          amount: '35.00',
          currency: 'EUR',
          reason: 'forged',
          source: 'STAFF',
          staffUserId: STAFF,
          idempotencyKey: 'forged',
          status: 'NEEDS_ATTENTION',
        },
      });
      await tx.refund.create({
        data: { refundRequestId: request.id, tenderId: books.cardTenderId, amount: '35.00', destination: 'ORIGINAL', status: 'FAILED' },
      });
    });
    expect(failures(results)).toEqual([{ check: 'tender_refunds_within_capture', ids: [String(books.cardTenderId)] }]);
  });

  it('order_matches_books: names an order whose tenders say more was given back than the ledger credited', async () => {
    const results = await auditAfter(
      (tx) => tx.$executeRaw`UPDATE payment_tenders SET refunded_amount = refunded_amount + 5 WHERE id = ${books.creditTenderId}`,
    );
    expect(failures(results)).toEqual([{ check: 'order_matches_books', ids: [String(books.creditOrderId)] }]);
  });

  it('order_matches_books: names an order whose tenders captured more than its total', async () => {
    const results = await auditAfter((tx) => tx.$executeRaw`UPDATE orders SET total = total - 1 WHERE id = ${books.cardOrderId}`);
    expect(failures(results)).toEqual([{ check: 'order_matches_books', ids: [String(books.cardOrderId)] }]);
  });

  it('store_credit_balance_within_overdraft: names an account debited below zero without a draft', async () => {
    const results = await auditAfter((tx) =>
      tx.storeCreditEntry.create({
        data: {
          accountId: books.creditAccountId,
          kind: 'DEBIT',
          status: 'POSTED',
          amount: '1000.00',
          idempotencyKey: 'forged',
          note: 'forged',
        },
      }),
    );
    expect(failures(results)).toEqual([{ check: 'store_credit_balance_within_overdraft', ids: [String(books.creditAccountId)] }]);
  });

  it('store_credit_entries_match_drafts: names a pending entry no draft holds', async () => {
    let entryId = 0n;
    const results = await auditAfter(async (tx) => {
      entryId = (
        await tx.storeCreditEntry.create({
          data: {
            accountId: books.creditAccountId,
            kind: 'CREDIT',
            status: 'PENDING',
            amount: '1.00',
            idempotencyKey: 'forged',
            note: 'forged',
          },
        })
      ).id;
    });
    expect(failures(results)).toEqual([{ check: 'store_credit_entries_match_drafts', ids: [String(entryId)] }]);
  });

  it('cancelled_order_holds_no_money: names the store credit tender of an order cancelled in SQL, as the hold expiry cancels', async () => {
    const results = await auditAfter(
      (tx) => tx.$executeRaw`UPDATE orders SET status = 'CANCELLED', cancelled_at = now() WHERE id = ${books.placedOrderId}`,
    );
    expect(failures(results)).toEqual([{ check: 'cancelled_order_holds_no_money', ids: [String(books.placedCreditTenderId)] }]);
  });

  it("cancelled_order_holds_no_money: names a cancelled order's card authorization left past its expiry", async () => {
    const results = await auditAfter(async (tx) => {
      await tx.$executeRaw`UPDATE orders SET status = 'CANCELLED', cancelled_at = now() WHERE id = ${books.placedOrderId}`;
      await tx.$executeRaw`UPDATE payment_tenders SET authorization_expires_at = now() - interval '1 day' WHERE id = ${books.placedCardTenderId}`;
    });
    expect(failures(results)).toEqual([
      {
        check: 'cancelled_order_holds_no_money',
        ids: [books.placedCreditTenderId, books.placedCardTenderId].sort((a, b) => Number(a - b)).map(String),
      },
    ]);
  });

  it('refunded_return_refunds_succeeded: names a REFUNDED return whose refund request needs attention', async () => {
    const results = await auditAfter(
      (tx) => tx.$executeRaw`UPDATE refund_requests SET status = 'NEEDS_ATTENTION' WHERE id = ${books.returnRequestId}`,
    );
    const rma = await prisma().returnAuthorization.findFirstOrThrow({ where: { status: 'REFUNDED' } });
    expect(failures(results)).toEqual([{ check: 'refunded_return_refunds_succeeded', ids: [String(rma.id)] }]);
  });

  it('refund_request_matches_refunds: names a request whose refunds do not add up to it', async () => {
    const results = await auditAfter(
      (tx) => tx.$executeRaw`UPDATE refund_requests SET amount = amount + 1 WHERE id = ${books.cardRequestId}`,
    );
    expect(failures(results)).toEqual([{ check: 'refund_request_matches_refunds', ids: [String(books.cardRequestId)] }]);
  });

  it('settled_refund_recorded_once: names a settled refund whose gateway refund is of another amount', async () => {
    const results = await auditAfter(async (tx) => {
      await tx.$executeRaw`UPDATE refunds SET amount = amount - 1 WHERE id = ${books.cardRefundId}`;
      await tx.$executeRaw`UPDATE refund_requests SET amount = amount - 1 WHERE id = ${books.cardRequestId}`;
    });
    expect(failures(results)).toEqual([{ check: 'settled_refund_recorded_once', ids: [String(books.cardRefundId)] }]);
  });

  it("gateway_key_used_once: names a movement sent under another tender's key, and both records of one gateway operation", async () => {
    let foreign = 0n;
    let twice = 0n;
    const voided = await prisma().tenderEvent.findFirstOrThrow({ where: { tenderId: books.cancelledCardTenderId, kind: 'VOIDED' } });
    const results = await auditAfter(async (tx) => {
      const at = new Date();
      foreign = (
        await tx.tenderEvent.create({
          data: {
            tenderId: books.cardTenderId,
            kind: 'VOIDED',
            amount: '0.01',
            idempotencyKey: 'void:999999',
            gatewayOperationId: 'void_forged',
            occurredAt: at,
          },
        })
      ).id;
      twice = (
        await tx.tenderEvent.create({
          data: {
            tenderId: books.placedCardTenderId,
            kind: 'VOIDED',
            amount: '0.01',
            idempotencyKey: `void:${books.placedCardTenderId}`,
            gatewayOperationId: voided.gatewayOperationId,
            occurredAt: at,
          },
        })
      ).id;
    });
    expect(failures(results)).toEqual([{ check: 'gateway_key_used_once', ids: [voided.id, foreign, twice].map(String) }]);
  });
});

describe('npm run money:audit', () => {
  it('exits 0 on balanced books, one ok line per check', async () => {
    const { code, stdout } = await moneyAudit({ DATABASE_URL: commerce.platform.database.url });
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      ...MONEY_CHECKS.map((check) => `ok      ${check.name}: ${check.invariant}`),
      `all ${MONEY_CHECKS.length} money checks hold`,
    ]);
  });

  it('exits 1 and prints the offending rows as a table with their ids', async () => {
    await prisma().$executeRaw`UPDATE refund_requests SET amount = amount + 1 WHERE id = ${books.cardRequestId}`;
    try {
      const { code, stdout } = await moneyAudit({ DATABASE_URL: commerce.platform.database.url });
      expect(code).toBe(1);
      const lines = stdout.trim().split('\n');
      const failed = lines.findIndex((line) => line.startsWith('FAILED  refund_request_matches_refunds: '));
      expect(lines[failed]).toMatch(/\(1 row\)$/);
      expect(lines[failed + 1]?.split('|').map((cell) => cell.trim())).toEqual([
        'refund_request_id',
        'order_id',
        'status',
        'amount',
        'refunds_amount',
        'refunds_not_settled',
      ]);
      expect(lines[failed + 3]?.split('|').map((cell) => cell.trim())).toEqual([
        String(books.cardRequestId),
        String(books.cardOrderId),
        'SUCCEEDED',
        '11.00',
        '10.00',
        '0',
      ]);
      expect(lines.at(-1)).toBe(`1 of ${MONEY_CHECKS.length} money checks failed`);
    } finally {
      await prisma().$executeRaw`UPDATE refund_requests SET amount = amount - 1 WHERE id = ${books.cardRequestId}`;
    }
  });

  it('stops with one line naming DATABASE_URL and exit code 78 without it', async () => {
    const { code, stdout, stderr } = await moneyAudit({});
    expect(code).toBe(78);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('DATABASE_URL')]);
  });

  it('refuses arguments with its usage and exit code 64', async () => {
    const { code, stderr } = await moneyAudit({ DATABASE_URL: commerce.platform.database.url }, ['--fix']);
    expect(code).toBe(64);
    expect(stderr).toMatch(/^usage: money-audit-cli.ts/);
  });
});
