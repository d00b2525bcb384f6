// A return credited in advance whose goods never come, on the real Temporal server and PostgreSQL:
// GcExpiredRmaDraftsWorkflow expires it past its receipt window and claws the credit back once (the
// part already spent as a REFUND_CLAWBACK overdraft draft); GcExpiredOverdraftDraftsWorkflow then
// expires the draft. A partly received one is closed past its window, clawing back only the units that never came.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCartLine, createCart } from '@shop/domain/carts';
import { creditInAdvanceKeys, placeOrder, submitReturnWithCreditInAdvance } from '@shop/domain/flows';
import { fulfilOrder } from '@shop/domain/orders';
import { createReturnDraft, receiveReturn } from '@shop/domain/returns';
import { customerStoreCreditAccount, debitStoreCredit, issueStoreCredit, storeCreditBalance } from '@shop/domain/store-credit';
import { TASK_QUEUE, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { ADDRESS } from '../../services/domain/test/support/commerce.ts';
import { openWorkflowShop, type WorkflowShop } from '../support/workflows.ts';

let shop: WorkflowShop;
let worker: { url: string };

beforeAll(async () => {
  shop = await openWorkflowShop('return-clawback');
  worker = await shop.startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
});

const prisma = () => shop.commerce.platform.database.prisma;
const run = (workflowType: string, workflowId: string, asOf: Date) =>
  shop.client.workflow.execute(workflowType, { taskQueue: TASK_QUEUE, workflowId, args: [asOf.toISOString()] });

/**
 * A FULFILLED order of `quantity` units at 15.00 of a new customer, paid with store credit, the rest of which
 * they spent elsewhere (the balance is 0.00).
 */
async function fulfilledOrder(name: string, quantity: number) {
  const customer = await prisma().customer.create({
    data: { channelId: shop.catalog.channelId, email: `${name}@example.com`, passwordHash: 'scrypt$unused' },
  });
  const productId = await shop.catalog.product(`${name}-mug`, '15.00', 5);
  const shopper = { customerId: customer.id };
  return shop.transaction(async (tx) => {
    await issueStoreCredit(tx, shop.deps, {
      customerId: customer.id,
      currency: 'EUR',
      amount: '100.00',
      note: 'to spend',
      idempotencyKey: `issue:${name}`,
    });
    const cart = await createCart(tx, shop.deps, { channelId: shop.catalog.channelId, shopper });
    await addCartLine(tx, shop.deps, { cartId: cart.id, shopper, productId, quantity });
    const placed = await placeOrder(tx, shop.deps, {
      cartId: cart.id,
      shopper,
      email: `${name}@example.com`,
      billingAddress: ADDRESS,
      shippingAddress: ADDRESS,
      useStoreCredit: true,
      idempotencyKey: `checkout:${name}`,
    });
    const account = await customerStoreCreditAccount(tx, customer.id, 'EUR');
    // The rest is spent elsewhere: the account holds nothing but what the return credits.
    const left = await storeCreditBalance(tx, account.id);
    await debitStoreCredit(tx, shop.deps, {
      accountId: account.id,
      amount: left.toFixed(2),
      note: 'spent elsewhere',
      idempotencyKey: `spend:${name}:1`,
    });
    return { order: await fulfilOrder(tx, shop.deps, placed.id), accountId: account.id };
  });
}

/** A return of every unit of the order's line, submitted by staff with credit in advance. */
const creditedReturn = (orderId: bigint, orderLineId: bigint, quantity: number) =>
  shop.transaction(async (tx) => {
    const drafted = await createReturnDraft(tx, shop.deps, {
      orderId,
      lines: [{ orderLineId, quantity }],
      reason: 'never sent back',
      actor: { kind: 'staff', staffUserId: 1n },
    });
    return submitReturnWithCreditInAdvance(tx, shop.deps, drafted.id, 1n);
  });

const clawbackEntries = async (accountId: bigint, key: string) =>
  (await prisma().storeCreditEntry.findMany({ where: { accountId, idempotencyKey: { startsWith: key } }, orderBy: { id: 'asc' } })).map(
    (entry) => [entry.kind, entry.status, entry.amount.toFixed(2), entry.idempotencyKey],
  );

describe('the clawback of a return credited in advance', () => {
  it('expires the unreceived return once, claws back what is left and drafts the spent part, which then expires', async () => {
    await shop.setSetting('workflows', { returnReceiptWindowHours: 1, refundClawbackOverdraftHours: 2 });
    const { order, accountId } = await fulfilledOrder('credited', 2);
    const balance = async () => (await storeCreditBalance(prisma(), accountId)).toFixed(2);
    const { rma, refund } = await creditedReturn(order.id, order.lines[0]?.id ?? 0n, 2);
    expect(refund).toMatchObject({ amount: '30.00', status: 'SUCCEEDED' });
    // The request's workflow starts from the outbox as every refund's, finds its credit paid, and credits nothing twice.
    await expect((await shop.started(workflowIds.refundExecution(refund.id))).result()).resolves.toEqual({ status: 'SUCCEEDED' });
    expect(await balance()).toBe('30.00');
    await shop.transaction((tx) =>
      debitStoreCredit(tx, shop.deps, { accountId, amount: '20.00', note: 'spent on another order', idempotencyKey: 'spend:credited:2' }),
    );
    const dueAt = rma.receiptDueAt ?? new Date(0);
    expect(dueAt.getTime() - (rma.requestedAt?.getTime() ?? 0)).toBe(60 * 60_000);

    const sweepReturns = (workflowId: string, asOf: Date) => run(WORKFLOW_TYPES.gcExpiredRmaDrafts, workflowId, asOf);
    await expect(sweepReturns('gc-expired-rma-drafts-not-due', new Date(dueAt.getTime() - 60_000))).resolves.toEqual({
      passes: 1,
      processed: 0,
    });
    await expect(sweepReturns('gc-expired-rma-drafts-clawback', dueAt)).resolves.toEqual({ passes: 1, processed: 1 });
    await expect(sweepReturns('gc-expired-rma-drafts-clawback-again', dueAt)).resolves.toEqual({ passes: 1, processed: 0 });

    expect(await prisma().returnAuthorization.findUniqueOrThrow({ where: { id: rma.id } })).toMatchObject({
      status: 'EXPIRED',
      closedAt: expect.any(Date),
    });
    const key = creditInAdvanceKeys.clawback(rma.id);
    expect(await clawbackEntries(accountId, key)).toEqual([
      ['DEBIT', 'POSTED', '10.00', key],
      ['DEBIT', 'PENDING', '20.00', `${key}:overdraft`],
    ]);
    const drafts = await prisma().storeCreditOverdraftDraft.findMany({ where: { accountId } });
    expect(drafts.map((draft) => [draft.reason, draft.status, draft.amount.toFixed(2)])).toEqual([['REFUND_CLAWBACK', 'DRAFT', '20.00']]);
    expect((await prisma().storeCreditEntry.findUniqueOrThrow({ where: { id: drafts[0]?.entryId ?? 0n } })).idempotencyKey).toBe(
      `${key}:overdraft`,
    );
    // Below zero only by what the draft holds.
    expect(await balance()).toBe('-20.00');
    const { rows } = await shop.commerce.platform.database.pool.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM outbox_events WHERE name = 'shop.returns.status_changed.v1' AND payload->>'return_id' = $1 ORDER BY id",
      [rma.id.toString()],
    );
    expect(rows.map((row) => [row.payload.from, row.payload.to])).toEqual([
      [null, 'DRAFT'],
      ['DRAFT', 'REQUESTED'],
      ['REQUESTED', 'EXPIRED'],
    ]);
    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(metrics).toMatch(/workflow_sweep_rows_total\{sweep="GcExpiredRmaDraftsWorkflow",what="unreceived_returns"[^}]*\} 1\n/);
    await shop.saveHistory('gc-expired-rma-drafts-clawback', WORKFLOW_TYPES.gcExpiredRmaDrafts, 'clawback');

    const draftExpiry = drafts[0]?.expiresAt ?? new Date(0);
    const sweepDrafts = (workflowId: string) => run(WORKFLOW_TYPES.gcExpiredOverdraftDrafts, workflowId, draftExpiry);
    await expect(sweepDrafts('gc-expired-overdraft-drafts-clawback')).resolves.toEqual({ passes: 1, processed: 1 });
    await expect(sweepDrafts('gc-expired-overdraft-drafts-clawback-again')).resolves.toEqual({ passes: 1, processed: 0 });
    expect(await prisma().storeCreditOverdraftDraft.findUniqueOrThrow({ where: { id: drafts[0]?.id ?? 0n } })).toMatchObject({
      status: 'EXPIRED',
    });
    expect(await balance()).toBe('0.00');
  });

  it('closes a partly received return past its receipt window once, clawing back only the units that never came', async () => {
    await shop.setSetting('workflows', { returnReceiptWindowHours: 1, refundClawbackOverdraftHours: 2 });
    const { order, accountId } = await fulfilledOrder('partly', 3);
    const orderLineId = order.lines[0]?.id ?? 0n;
    const { rma, refund } = await creditedReturn(order.id, orderLineId, 3);
    // Its run locks the return when it ends, and the sweep skips a locked return: let it end first.
    await expect((await shop.started(workflowIds.refundExecution(refund.id))).result()).resolves.toEqual({ status: 'SUCCEEDED' });
    await shop.transaction((tx) =>
      receiveReturn(tx, shop.deps, {
        returnId: rma.id,
        lines: [{ orderLineId, quantity: 1 }],
        idempotencyKey: 'partly:1',
        staffUserId: 1n,
      }),
    );
    await shop.transaction((tx) =>
      debitStoreCredit(tx, shop.deps, { accountId, amount: '40.00', note: 'spent on another order', idempotencyKey: 'spend:partly:2' }),
    );
    const dueAt = rma.receiptDueAt ?? new Date(0);

    const sweepReturns = (workflowId: string) => run(WORKFLOW_TYPES.gcExpiredRmaDrafts, workflowId, dueAt);
    await expect(sweepReturns('gc-expired-rma-drafts-partial-clawback')).resolves.toEqual({ passes: 1, processed: 1 });
    await expect(sweepReturns('gc-expired-rma-drafts-partial-clawback-again')).resolves.toEqual({ passes: 1, processed: 0 });

    expect(await prisma().returnAuthorization.findUniqueOrThrow({ where: { id: rma.id } })).toMatchObject({
      status: 'CLOSED',
      closedAt: expect.any(Date),
      receivedAt: null,
    });
    // 2 of the 3 units at 15.00 never came: 30.00, of which the balance held 5.00.
    const key = creditInAdvanceKeys.clawback(rma.id);
    expect(await clawbackEntries(accountId, key)).toEqual([
      ['DEBIT', 'POSTED', '5.00', key],
      ['DEBIT', 'PENDING', '25.00', `${key}:overdraft`],
    ]);
    expect(
      (await prisma().storeCreditOverdraftDraft.findMany({ where: { accountId } })).map((draft) => [
        draft.reason,
        draft.status,
        draft.amount.toFixed(2),
      ]),
    ).toEqual([['REFUND_CLAWBACK', 'DRAFT', '25.00']]);
    expect((await storeCreditBalance(prisma(), accountId)).toFixed(2)).toBe('-25.00');
    await shop.saveHistory('gc-expired-rma-drafts-partial-clawback', WORKFLOW_TYPES.gcExpiredRmaDrafts, 'partial-clawback');
  });
});
