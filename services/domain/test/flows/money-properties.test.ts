import { Registry } from 'prom-client';
import { workflowMetrics } from '@shop/platform';
// Property-based tests of the money state machines on real PostgreSQL and the test gateway: random
// checkouts (gift card, store credit, card; some by business customers, whose orders wait for approval),
// then random sequences of fulfilment and capture, partial refunds (some answered 500 after the gateway
// committed, then retried), returns, cancels, approvals, the expiry of stock holds, the sweep of expiring
// authorizations and retried requests. After each sequence the money audit must pass and no
// money may be created or lost. Seeded: MONEY_PROPERTY_SEED=<seed> replays a failed run (fast-check
// prints the seed and the shrunk sequence).
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DomainDeps } from '../../src/kernel/context.ts';
import { DomainError } from '../../src/kernel/domain-error.ts';
import { addCartLine, createCart } from '../../src/carts/carts.ts';
import { checkout } from '../../src/flows/checkout.ts';
import type { OrderWithLines } from '../../src/orders/order-events.ts';
import { expireUnpaidOrder } from '../../src/flows/order-expiry.ts';
import { approveOrder, fulfilOrder } from '../../src/orders/order-transitions.ts';
import { voidExpiringAuthorizations } from '../../src/flows/expiring-authorizations.ts';
import { auditMoney, failedChecks, formatMoneyAudit } from '../../src/money-audit/money-audit.ts';
import { runRefundRequest } from '../../src/flows/refund-execution.ts';
import { requestRefund } from '../../src/refunds/refund-requests.ts';
import { customerStoreCreditAccount, issueGiftCard, issueStoreCredit, storeCreditBalance } from '../../src/store-credit/store-credit.ts';
import { captureOrderTenders } from '../../src/tenders/tenders.ts';
import { createReturnDraft, receiveReturn, submitReturn } from '../../src/returns/returns.ts';
import { openGatewayCommerce, type GatewayCommerce } from '../support/gateway.ts';
import { ADDRESS, type Commerce } from '../support/commerce.ts';
import { cancelOrder } from '../../src/flows/order-cancellation.ts';

const metrics = workflowMetrics(new Registry());

const SEED = Number(process.env.MONEY_PROPERTY_SEED ?? 20261128);
const RUNS = 50;
const STAFF = 1n;
const PRICE_CENTS = 1990;

let shop: GatewayCommerce;
let commerce: Commerce;
let deps: DomainDeps;
let runs = 0;

beforeAll(async () => {
  shop = await openGatewayCommerce('money_properties', 'mp');
  ({ commerce, deps } = shop);
});

afterAll(async () => {
  await shop?.close();
});

type Action =
  | { readonly kind: 'fulfil' }
  | { readonly kind: 'refund'; readonly cents: number; readonly gatewayFailsOnce: boolean; readonly retried: boolean }
  | { readonly kind: 'return'; readonly units: number }
  | { readonly kind: 'cancel' }
  | { readonly kind: 'approve' }
  | { readonly kind: 'expire_hold' }
  | { readonly kind: 'expire_authorizations' }
  | { readonly kind: 'retry_checkout' };

// Refunds and returns weigh more, so that enough sequences get that far among the other moves.
const action: fc.Arbitrary<Action> = fc.oneof(
  fc.constant({ kind: 'fulfil' as const }),
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      cents: fc.integer({ min: 1, max: 8000 }),
      gatewayFailsOnce: fc.boolean(),
      retried: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('return' as const), units: fc.integer({ min: 1, max: 3 }) }) },
  fc.constant({ kind: 'cancel' as const }),
  fc.constant({ kind: 'approve' as const }),
  fc.constant({ kind: 'expire_hold' as const }),
  fc.constant({ kind: 'expire_authorizations' as const }),
  fc.constant({ kind: 'retry_checkout' as const }),
);

const scenario = fc.record({
  quantity: fc.integer({ min: 1, max: 3 }),
  giftCardCents: fc.option(fc.integer({ min: 1, max: 6000 }), { nil: undefined }),
  storeCreditCents: fc.option(fc.integer({ min: 1, max: 8000 }), { nil: undefined }),
  card: fc.boolean(),
  business: fc.boolean(),
  // Fulfilment first more often than not, so refunds and returns have something to act on.
  actions: fc
    .tuple(fc.boolean(), fc.array(action, { maxLength: 6 }))
    .map(([fulfilFirst, rest]) => (fulfilFirst ? [{ kind: 'fulfil' as const }, ...rest] : rest)),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

const euros = (cents: number) => (cents / 100).toFixed(2);
const cents = (amount: { toFixed(digits: number): string }) => Math.round(Number(amount.toFixed(2)) * 100);
const prisma = () => commerce.platform.database.prisma;
const run = (requestId: bigint) =>
  runRefundRequest(
    { transaction: commerce.transaction, deps, metrics },
    { requestId, run: { workflow: 'RefundExecutionWorkflow', workflowId: `refund-${requestId}`, runId: `run-${requestId}` } },
  );

/** A refusal the shop answers on purpose (a refund of an unfulfilled order, a cancel after shipping…): the property is about what it leaves. */
async function refusedOrDone(work: () => Promise<unknown>): Promise<void> {
  await work().catch((error: unknown) => {
    if (!(error instanceof DomainError) || error.code === 'UNAVAILABLE') throw error;
  });
}

/** Runs a refund request as the workflow would: again after a gateway that did not answer, until nothing is left to run. */
async function settle(requestId: bigint): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const failed = await run(requestId).then(
      () => false,
      (error: unknown) => {
        if (error instanceof DomainError && error.code === 'UNAVAILABLE') return true;
        throw error;
      },
    );
    if (!failed) return;
  }
  throw new Error(`refund request ${requestId} did not settle after 3 runs`);
}

interface Books {
  readonly issuedCents: number;
  readonly accountIds: readonly bigint[];
  readonly cartId: bigint;
}

async function act(
  name: string,
  order: OrderWithLines,
  token: string,
  step: Action,
  index: number,
  retryCheckout: () => Promise<OrderWithLines>,
): Promise<void> {
  switch (step.kind) {
    case 'fulfil':
      return refusedOrDone(() =>
        shop.inGatewayTransaction(async (tx) => {
          await fulfilOrder(tx, deps, order.id);
          await captureOrderTenders(tx, deps, order.id);
        }),
      );
    case 'refund': {
      if (step.gatewayFailsOnce)
        await shop.control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'refund', cardToken: token });
      const ask = () =>
        commerce.transaction((tx) =>
          requestRefund(tx, deps, {
            orderId: order.id,
            amount: euros(step.cents),
            reason: 'property',
            idempotencyKey: `${name}:refund:${index}`,
            source: { kind: 'STAFF', staffUserId: STAFF },
          }),
        );
      return refusedOrDone(async () => {
        const request = await ask();
        await settle(BigInt(request.id));
        if (step.retried) {
          expect((await ask()).id).toBe(request.id);
          await settle(BigInt(request.id));
        }
      });
    }
    case 'return':
      return refusedOrDone(async () => {
        const line = { orderLineId: order.lines[0]?.id ?? 0n, quantity: step.units };
        const receipt = await commerce.transaction(async (tx) => {
          const draft = await createReturnDraft(tx, deps, {
            orderId: order.id,
            lines: [line],
            reason: 'property',
            actor: { kind: 'staff', staffUserId: STAFF },
          });
          await submitReturn(tx, deps, draft.id, { kind: 'staff', staffUserId: STAFF });
          return receiveReturn(tx, deps, {
            returnId: draft.id,
            lines: [line],
            idempotencyKey: `${name}:receipt:${index}`,
            staffUserId: STAFF,
          });
        });
        if (receipt.refund !== null) await settle(BigInt(receipt.refund.id));
      });
    case 'cancel':
      return refusedOrDone(() => shop.inGatewayTransaction((tx) => cancelOrder(tx, shop.deps, order.id, 'property')));
    case 'approve':
      return refusedOrDone(() => commerce.transaction((tx) => approveOrder(tx, deps, order.id)));
    case 'expire_hold':
      // As the lifecycle's payment deadline or the approval's expiry does, long after any hold ran out.
      await commerce.transaction((tx) => expireUnpaidOrder(tx, deps, order.id, new Date(Date.now() + 30 * 24 * 60 * 60_000)));
      return;
    case 'expire_authorizations': {
      // As of a day before this order's authorization lapses: within the sweep's margin.
      const card = await prisma().paymentTender.findFirst({ where: { orderId: order.id, kind: 'CARD' } });
      if (card?.authorizationExpiresAt == null) return;
      const asOf = new Date(card.authorizationExpiresAt.getTime() - 24 * 60 * 60_000);
      await voidExpiringAuthorizations(commerce.transaction, shop.deps, {
        asOf,
        limit: 100,
        run: { workflow: 'VoidExpiringCardAuthsWorkflow', workflowId: `void-${name}-${index}`, runId: 'run-1' },
      });
      return;
    }
    case 'retry_checkout':
      expect((await retryCheckout()).id).toBe(order.id);
  }
}

/** The run's customer money outside the shop's take: what its accounts hold now. */
async function balancesCents(accountIds: readonly bigint[]): Promise<number> {
  let total = 0;
  for (const accountId of accountIds) total += cents(await storeCreditBalance(prisma(), accountId));
  return total;
}

async function expectMoneyKept(books: Books): Promise<void> {
  const tenders = await prisma().paymentTender.findMany({ where: { OR: [{ cartId: books.cartId }, { order: { cartId: books.cartId } }] } });
  const tendersNet = tenders.reduce((sum, tender) => sum + cents(tender.capturedAmount) - cents(tender.refundedAmount), 0);
  const cardTenders = tenders.filter((tender) => tender.kind === 'CARD');
  const authorizations = new Set(cardTenders.map((tender) => tender.gatewayReference));
  const operations = (await shop.control.operations()).filter(
    (operation) => authorizations.has(operation.authorizationId) && operation.status === 'approved',
  );
  const gatewayNet = operations.reduce(
    (sum, operation) =>
      sum + (operation.kind === 'capture' ? operation.amount.amountMinor : operation.kind === 'refund' ? -operation.amount.amountMinor : 0),
    0,
  );
  // What the card tenders took and gave back is what the gateway did.
  expect(cardTenders.reduce((sum, tender) => sum + cents(tender.capturedAmount) - cents(tender.refundedAmount), 0)).toBe(gatewayNet);
  // Nothing created, nothing lost: stored value issued plus what the cards paid is what the accounts hold plus what the shop keeps.
  expect((await balancesCents(books.accountIds)) + tendersNet).toBe(books.issuedCents + gatewayNet);
}

/** The audit's offending rows, as `check id`; and the audit's report. */
async function audit(): Promise<{ offending: Set<string>; report: string }> {
  const results = await prisma().$transaction((tx) => auditMoney(tx), { isolationLevel: 'RepeatableRead' });
  const offending = failedChecks(results).flatMap(({ check, rows }) => rows.map((row) => `${check.name} ${Object.values(row)[0] ?? ''}`));
  return { offending: new Set(offending), report: formatMoneyAudit(results) };
}

/**
 * Every run shares the file's database: a run is blamed only for rows it broke, so that once one run
 * broke the books, fast-check's shrinking still looks for the smallest sequence that breaks them.
 */
async function expectAuditPassesSince(before: ReadonlySet<string>): Promise<void> {
  const after = await audit();
  const broken = [...after.offending].filter((row) => !before.has(row));
  if (broken.length > 0) throw new Error(`this sequence broke the books (${broken.join(', ')}):\n${after.report}`);
}

async function runScenario(plan: Scenario): Promise<void> {
  runs += 1;
  const name = `mp-${runs}`;
  const before = (await audit()).offending;
  const token = `tok_${name}`;
  const productId = await shop.catalog.product(name, euros(PRICE_CENTS), 10);
  const customer = await prisma().customer.create({
    data: {
      channelId: shop.catalog.channelId,
      email: `${name}@example.com`,
      passwordHash: 'scrypt$unused',
      ...(plan.business ? { isBusiness: true, approvalStatus: 'APPROVED' as const } : {}),
    },
  });
  const shopper = { customerId: customer.id };
  const setUp = await commerce.transaction(async (tx) => {
    const accountIds: bigint[] = [];
    let giftCardCode: string | undefined;
    if (plan.storeCreditCents !== undefined) {
      await issueStoreCredit(tx, deps, {
        customerId: customer.id,
        currency: 'EUR',
        amount: euros(plan.storeCreditCents),
        note: 'property',
        idempotencyKey: `${name}:credit`,
      });
      accountIds.push((await customerStoreCreditAccount(tx, customer.id, 'EUR')).id);
    }
    if (plan.giftCardCents !== undefined) {
      const card = await issueGiftCard(tx, deps, {
        currency: 'EUR',
        amount: euros(plan.giftCardCents),
        note: 'property',
        idempotencyKey: `${name}:gift-card`,
      });
      accountIds.push(card.id);
      giftCardCode = card.code;
    }
    const cart = await createCart(tx, deps, { channelId: shop.catalog.channelId, shopper });
    await addCartLine(tx, deps, { cartId: cart.id, shopper, productId, quantity: plan.quantity });
    return { accountIds, giftCardCode, cartId: cart.id };
  });
  const books: Books = {
    issuedCents: (plan.storeCreditCents ?? 0) + (plan.giftCardCents ?? 0),
    accountIds: setUp.accountIds,
    cartId: setUp.cartId,
  };
  const placeIt = () =>
    checkout(commerce.transaction, shop.deps, {
      cartId: setUp.cartId,
      shopper,
      email: `${name}@example.com`,
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
      idempotencyKey: `${name}:checkout`,
      useStoreCredit: plan.storeCreditCents !== undefined,
      giftCardCode: setUp.giftCardCode,
      card: plan.card ? { token } : undefined,
    });
  let order: OrderWithLines | undefined;
  await refusedOrDone(async () => (order = await placeIt()));
  if (order !== undefined) {
    for (const [index, step] of plan.actions.entries()) await act(name, order, token, step, index, placeIt);
  }
  await expectMoneyKept(books);
  await expectAuditPassesSince(before);
}

it(`keeps the books balanced and creates or loses no money over ${RUNS} random sequences (seed ${SEED})`, async () => {
  await fc.assert(
    fc.asyncProperty(scenario, (plan) => runScenario(plan)),
    { numRuns: RUNS, seed: SEED, verbose: true },
  );
  // The sequences reached every path they claim to: not only refusals.
  const reached = await prisma().$queryRaw<Record<string, bigint>[]>`
    SELECT (SELECT count(*) FROM orders WHERE status IN ('FULFILLED', 'COMPLETED')) AS fulfilled,
           (SELECT count(*) FROM orders WHERE status = 'CANCELLED') AS cancelled,
           (SELECT count(*) FROM orders WHERE status = 'CANCELLED' AND cancel_reason LIKE 'the stock hold expired%') AS expired,
           (SELECT count(*) FROM refunds WHERE status = 'SUCCEEDED') AS refunds,
           (SELECT count(DISTINCT kind) FROM payment_tenders WHERE captured_amount > 0) AS tender_kinds_captured,
           (SELECT count(*) FROM return_authorizations WHERE status = 'REFUNDED') AS returns_refunded,
           (SELECT count(*) FROM tender_events WHERE kind = 'VOIDED') AS voids`;
  expect(Object.entries(reached[0] ?? {}).filter(([, count]) => count === 0n)).toEqual([]);
}, 300_000);
