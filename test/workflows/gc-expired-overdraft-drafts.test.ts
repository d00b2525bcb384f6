// GcExpiredOverdraftDraftsWorkflow on the real Temporal server and PostgreSQL: a balance below zero
// through a recorded overdraft draft comes back to zero when the draft expires, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerStoreCreditAccount, debitStoreCredit, issueStoreCredit, storeCreditBalance } from '@shop/domain/store-credit';
import { TASK_QUEUE, WORKFLOW_TYPES } from '@shop/domain/workflows';
import { openWorkflowShop, type WorkflowShop } from '../support/workflows.ts';

let shop: WorkflowShop;

beforeAll(async () => {
  shop = await openWorkflowShop('overdraft-drafts');
  await shop.startWorker();
}, 180_000);

afterAll(async () => {
  await shop?.close();
});

const prisma = () => shop.commerce.platform.database.prisma;
const sweep = (workflowId: string, asOf: Date) =>
  shop.client.workflow.execute(WORKFLOW_TYPES.gcExpiredOverdraftDrafts, { taskQueue: TASK_QUEUE, workflowId, args: [asOf.toISOString()] });

describe('GcExpiredOverdraftDraftsWorkflow', () => {
  it('expires an overdraft draft past its expiry once, voiding what it overdrew, and leaves a draft not yet due', async () => {
    const customer = await prisma().customer.create({
      data: { channelId: shop.catalog.channelId, email: 'overdrawn@example.com', passwordHash: 'scrypt$unused' },
    });
    const { id: accountId } = await shop.transaction(async (tx) => {
      await issueStoreCredit(tx, shop.deps, {
        customerId: customer.id,
        currency: 'EUR',
        amount: '20.00',
        note: 'refund to store credit',
        idempotencyKey: 'refund:credit:1',
      });
      return customerStoreCreditAccount(tx, customer.id, 'EUR');
    });
    const now = Date.now();
    const expiresAt = new Date(now + 60 * 60_000);
    const later = new Date(now + 2 * 60 * 60_000);
    const clawback = (key: string, amount: string, at: Date) =>
      shop.transaction((tx) =>
        debitStoreCredit(tx, shop.deps, {
          accountId,
          amount,
          note: 'refund clawed back',
          idempotencyKey: key,
          overdraft: { reason: 'REFUND_CLAWBACK', expiresAt: at },
        }),
      );
    const due = await clawback('clawback:1', '35.00', expiresAt);
    const notYet = await clawback('clawback:2', '5.00', later);
    const balance = async () => (await storeCreditBalance(prisma(), accountId)).toFixed(2);
    expect(await balance()).toBe('-20.00');

    await expect(sweep('gc-expired-overdraft-drafts-early', new Date(now))).resolves.toEqual({ passes: 1, processed: 0 });
    await expect(sweep('gc-expired-overdraft-drafts-first', expiresAt)).resolves.toEqual({ passes: 1, processed: 1 });
    await expect(sweep('gc-expired-overdraft-drafts-second', expiresAt)).resolves.toEqual({ passes: 1, processed: 0 });

    expect(await balance()).toBe('-5.00');
    const drafts = await prisma().storeCreditOverdraftDraft.findMany({
      where: { accountId },
      orderBy: { id: 'asc' },
      include: { entry: true },
    });
    expect(drafts.map((draft) => [draft.id, draft.status, draft.entry.status, draft.amount.toFixed(2)])).toEqual([
      [due.overdraft?.id, 'EXPIRED', 'VOIDED', '15.00'],
      [notYet.overdraft?.id, 'DRAFT', 'PENDING', '5.00'],
    ]);
    const { rows } = await shop.commerce.platform.database.pool.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM outbox_events WHERE name = 'shop.payments.store_credit_moved.v1' AND payload->>'entry_status' = 'VOIDED' AND payload->>'account_id' = $1",
      [accountId.toString()],
    );
    expect(rows.map((row) => row.payload)).toMatchObject([
      { entry_kind: 'DEBIT', amount: '15.00', balance: '-5.00', overdraft_draft_id: due.overdraft?.id.toString() },
    ]);
    await shop.saveHistory('gc-expired-overdraft-drafts-first', WORKFLOW_TYPES.gcExpiredOverdraftDrafts, 'expired');
  });
});
