// Store credit on real PostgreSQL: the balance is derived from the ledger, concurrent debits queue
// on the account's row lock, and a balance goes below zero only through a recorded overdraft draft.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/kernel/domain-error.ts';
import {
  customerStoreCreditAccount,
  debitStoreCredit,
  expireOverdraftDrafts,
  issueStoreCredit,
  storeCreditBalance,
} from '../../src/store-credit/store-credit.ts';
import { openCommerce, seedCatalog, type Catalog, type Commerce } from '../support/commerce.ts';

let commerce: Commerce;
let catalog: Catalog;

beforeAll(async () => {
  commerce = await openCommerce('store_credit');
  catalog = await seedCatalog(commerce, 'sc');
});

afterAll(async () => {
  await commerce?.close();
});

const prisma = () => commerce.platform.database.prisma;

/** A new customer whose EUR account holds `amount`. */
async function customerWith(name: string, amount: string): Promise<{ customerId: bigint; accountId: bigint }> {
  const customer = await prisma().customer.create({
    data: { channelId: catalog.channelId, email: `${name}@example.com`, passwordHash: 'scrypt$unused' },
  });
  await commerce.transaction((tx) =>
    issueStoreCredit(tx, commerce.deps, {
      customerId: customer.id,
      currency: 'EUR',
      amount,
      note: 'goodwill',
      idempotencyKey: `issue:${name}`,
    }),
  );
  const account = await commerce.transaction((tx) => customerStoreCreditAccount(tx, customer.id, 'EUR'));
  return { customerId: customer.id, accountId: account.id };
}

const balance = async (accountId: bigint) => (await storeCreditBalance(prisma(), accountId)).toFixed(2);

describe('store credit', () => {
  it('issues credit once per key and derives the balance from the ledger', async () => {
    const { customerId, accountId } = await customerWith('ada', '25.00');
    const first = await commerce.lastEventId();
    const again = await commerce.transaction((tx) =>
      issueStoreCredit(tx, commerce.deps, { customerId, currency: 'EUR', amount: '25.00', note: 'goodwill', idempotencyKey: 'issue:ada' }),
    );

    expect(again.amount.toFixed(2)).toBe('25.00');
    expect(await balance(accountId)).toBe('25.00');
    expect(await commerce.events(first)).toEqual([]);
    const conflict = await commerce
      .transaction((tx) =>
        issueStoreCredit(tx, commerce.deps, {
          customerId,
          currency: 'EUR',
          amount: '30.00',
          note: 'goodwill',
          idempotencyKey: 'issue:ada',
        }),
      )
      .catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(DomainError);
    expect((conflict as DomainError).code).toBe('CONFLICT');
  });

  it('lets concurrent debits take no more than the balance', async () => {
    const { accountId } = await customerWith('grace', '50.00');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        commerce.transaction((tx) =>
          debitStoreCredit(tx, commerce.deps, { accountId, amount: '15.00', note: 'checkout', idempotencyKey: `spend:grace:${index}` }),
        ),
      ),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect((outcome.reason as DomainError).code).toBe('CONFLICT');
    expect(await balance(accountId)).toBe('5.00');
    expect(await prisma().storeCreditOverdraftDraft.count({ where: { accountId } })).toBe(0);
  });

  it('goes below zero only through an overdraft draft, which expires and voids what it overdrew', async () => {
    const { accountId } = await customerWith('hedy', '20.00');
    const expiresAt = new Date(commerce.deps.now().getTime() + 24 * 60 * 60 * 1000);
    const clawback = { accountId, amount: '35.00', note: 'refund clawed back', idempotencyKey: 'clawback:hedy' } as const;
    const first = await commerce.lastEventId();

    const refused = await commerce.transaction((tx) => debitStoreCredit(tx, commerce.deps, clawback)).catch((error: unknown) => error);
    expect((refused as DomainError).code).toBe('CONFLICT');
    expect(await balance(accountId)).toBe('20.00');

    const debit = await commerce.transaction((tx) =>
      debitStoreCredit(tx, commerce.deps, { ...clawback, overdraft: { reason: 'REFUND_CLAWBACK', expiresAt } }),
    );
    const retried = await commerce.transaction((tx) =>
      debitStoreCredit(tx, commerce.deps, { ...clawback, overdraft: { reason: 'REFUND_CLAWBACK', expiresAt } }),
    );
    expect(debit.covered?.amount.toFixed(2)).toBe('20.00');
    expect(debit.overdraft).toMatchObject({ status: 'DRAFT', reason: 'REFUND_CLAWBACK' });
    expect(debit.overdraft?.amount.toFixed(2)).toBe('15.00');
    expect(retried.overdraft?.id).toBe(debit.overdraft?.id);
    expect(await balance(accountId)).toBe('-15.00');

    const expire = (asOf: Date) => commerce.transaction((tx) => expireOverdraftDrafts(tx, commerce.deps, { asOf, limit: 100 }));
    expect(await expire(new Date(expiresAt.getTime() - 1))).toEqual({ expired: 0, more: false });
    expect(await expire(expiresAt)).toEqual({ expired: 1, more: false });
    expect(await expire(expiresAt)).toEqual({ expired: 0, more: false });

    expect(await balance(accountId)).toBe('0.00');
    const draft = await prisma().storeCreditOverdraftDraft.findUniqueOrThrow({
      where: { id: debit.overdraft?.id ?? 0n },
      include: { entry: true },
    });
    expect(draft.status).toBe('EXPIRED');
    expect(draft.entry.status).toBe('VOIDED');
    const moves = (await commerce.events(first)).map(
      (event) => `${String(event.payload['entry_status'])}:${String(event.payload['amount'])}:${String(event.payload['balance'])}`,
    );
    expect(moves).toEqual(['POSTED:20.00:0.00', 'PENDING:15.00:-15.00', 'VOIDED:15.00:0.00']);
  });

  it('refuses to rewrite the ledger', async () => {
    const { accountId } = await customerWith('karen', '10.00');
    await expect(prisma().storeCreditEntry.updateMany({ where: { accountId }, data: { amount: '1000.00' } })).rejects.toThrow(
      /append-only/,
    );
    await expect(prisma().storeCreditEntry.deleteMany({ where: { accountId } })).rejects.toThrow(/append-only/);
    expect(await balance(accountId)).toBe('10.00');
  });
});
