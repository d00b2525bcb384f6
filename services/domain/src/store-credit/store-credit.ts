import type {
  OverdraftDraftStatus,
  OverdraftReason,
  PaymentTender,
  StoreCreditAccount,
  StoreCreditEntry,
  StoreCreditOverdraftDraft,
} from '@shop/platform';
import { randomBytes } from 'node:crypto';
import {
  type DomainDeps,
  DomainError,
  idString,
  LIMITS,
  money,
  type Money,
  moneyString,
  optionalId,
  requireCurrency,
  requirePositiveAmount,
  requireText,
  type Tx,
} from '../kernel/index.ts';
import { overdraftDraftMachine } from './overdraft-status.ts';

/**
 * Store credit: an account per customer and currency (a gift card is an account with a code), a
 * ledger of entries, and a balance derived from the ledger, never stored. Every movement locks the
 * account's row first, so two concurrent debits see each other's entries (docs/money.md).
 */

/** Posted credits minus debits that are pending or posted: a pending debit already holds its amount. */
export async function storeCreditBalance(db: Tx, accountId: bigint): Promise<Money> {
  const rows = await db.$queryRaw<{ balance: string }[]>`
    SELECT (COALESCE(SUM(amount) FILTER (WHERE kind = 'CREDIT' AND status = 'POSTED'), 0)
          - COALESCE(SUM(amount) FILTER (WHERE kind = 'DEBIT' AND status IN ('PENDING', 'POSTED')), 0))::text AS balance
      FROM store_credit_entries WHERE account_id = ${accountId}`;
  return money(rows[0]?.balance ?? '0');
}

/** The customer's account in this currency, created on first use. */
export async function customerStoreCreditAccount(tx: Tx, customerId: bigint, currency: string): Promise<StoreCreditAccount> {
  await tx.$executeRaw`INSERT INTO store_credit_accounts (customer_id, currency) VALUES (${customerId}, ${currency}) ON CONFLICT (customer_id, currency) DO NOTHING`;
  return tx.storeCreditAccount.findUniqueOrThrow({ where: { customerId_currency: { customerId, currency } } });
}

async function lockedAccount(tx: Tx, accountId: bigint): Promise<StoreCreditAccount> {
  await tx.$executeRaw`SELECT 1 FROM store_credit_accounts WHERE id = ${accountId} FOR UPDATE`;
  const account = await tx.storeCreditAccount.findUnique({ where: { id: accountId } });
  if (account === null) throw new DomainError('NOT_FOUND', `store credit account ${accountId} does not exist`, { field: 'accountId' });
  return account;
}

/** Emits shop.payments.store_credit_moved.v1 for an entry just written or changed, with the balance it leaves. */
async function recordEntry(
  tx: Tx,
  deps: DomainDeps,
  account: StoreCreditAccount,
  entry: StoreCreditEntry,
  overdraftDraftId: bigint | null,
): Promise<void> {
  await deps.emit(tx, 'shop.payments.store_credit_moved.v1', {
    account_id: idString(account.id),
    customer_id: optionalId(account.customerId),
    entry_id: idString(entry.id),
    entry_kind: entry.kind,
    entry_status: entry.status,
    amount: moneyString(entry.amount, account.currency),
    currency: account.currency,
    balance: moneyString(await storeCreditBalance(tx, account.id), account.currency),
    order_id: optionalId(entry.orderId),
    overdraft_draft_id: optionalId(overdraftDraftId),
    occurred_at: deps.now().toISOString(),
  });
}

/** A key a retried movement sent again, found on another movement: refused, so one key never moves credit twice. */
const keyReused = (idempotencyKey: string): DomainError =>
  new DomainError('CONFLICT', `the idempotency key ${JSON.stringify(idempotencyKey)} was already used for another store credit movement`, {
    field: 'idempotencyKey',
  });

/**
 * The entry already written under this key, when a retried movement finds it: the same movement
 * answers it, another movement under the same key is refused.
 */
async function replayedEntry(
  tx: Tx,
  idempotencyKey: string,
  accountId: bigint,
  kind: StoreCreditEntry['kind'],
  amount: Money,
): Promise<StoreCreditEntry | null> {
  const entry = await tx.storeCreditEntry.findUnique({ where: { idempotencyKey } });
  if (entry === null) return null;
  if (entry.accountId !== accountId || entry.kind !== kind || !entry.amount.eq(amount)) {
    throw keyReused(idempotencyKey);
  }
  return entry;
}

export interface IssueStoreCredit {
  readonly customerId: bigint;
  readonly currency: string;
  /** A positive decimal string, e.g. "25.00". */
  readonly amount: string;
  readonly note: string;
  readonly idempotencyKey: string;
  readonly staffUserId?: bigint;
}

/** Credits a customer's account (a posted CREDIT). Retried with the same key: the first entry, once. */
export async function issueStoreCredit(tx: Tx, deps: DomainDeps, input: IssueStoreCredit): Promise<StoreCreditEntry> {
  const amount = requirePositiveAmount(input.amount, requireCurrency(input.currency));
  const note = requireText('note', input.note, LIMITS.storeCreditNote);
  const idempotencyKey = requireText('idempotencyKey', input.idempotencyKey, LIMITS.idempotencyKey);
  const found = await tx.customer.findUnique({ where: { id: input.customerId }, select: { id: true } });
  if (found === null) throw new DomainError('NOT_FOUND', `customer ${input.customerId} does not exist`, { field: 'customerId' });
  const account = await lockedAccount(tx, (await customerStoreCreditAccount(tx, input.customerId, input.currency)).id);
  const replayed = await replayedEntry(tx, idempotencyKey, account.id, 'CREDIT', amount);
  if (replayed !== null) return replayed;
  const entry = await tx.storeCreditEntry.create({
    data: { accountId: account.id, kind: 'CREDIT', status: 'POSTED', amount, idempotencyKey, note, staffUserId: input.staffUserId ?? null },
  });
  await recordEntry(tx, deps, account, entry, null);
  return entry;
}

export interface Overdraft {
  readonly reason: OverdraftReason;
  readonly expiresAt: Date;
}

export interface DebitStoreCredit {
  readonly accountId: bigint;
  readonly amount: string;
  readonly note: string;
  readonly idempotencyKey: string;
  readonly orderId?: bigint;
  /** Lets the debit take the balance below zero, through a recorded draft; without it a debit beyond the balance is refused. */
  readonly overdraft?: Overdraft;
}

export interface StoreCreditDebit {
  /** The posted debit of what the balance covered; null when the balance covered nothing. */
  readonly covered: StoreCreditEntry | null;
  /** The overdraft draft and its pending debit, when the debit went below zero. */
  readonly overdraft: StoreCreditOverdraftDraft | null;
}

/** The key of the pending debit an overdraft draft holds, beside the covered part's key. */
const overdraftKey = (idempotencyKey: string): string => `${idempotencyKey}:overdraft`;

/**
 * Debits an account under its row lock. What the balance covers is a POSTED debit; the rest, only
 * with `overdraft`, is a PENDING debit held by an overdraft draft that expires. Retried with the
 * same key: the first debit's entries, once.
 */
export async function debitStoreCredit(tx: Tx, deps: DomainDeps, input: DebitStoreCredit): Promise<StoreCreditDebit> {
  const account = await lockedAccount(tx, input.accountId);
  const amount = requirePositiveAmount(input.amount, account.currency);
  const previous = await tx.storeCreditEntry.findMany({
    where: { idempotencyKey: { in: [input.idempotencyKey, overdraftKey(input.idempotencyKey)] } },
    include: { overdraftDraft: true },
  });
  if (previous.length > 0) {
    const total = previous.reduce((all, entry) => all.add(entry.amount), money(0));
    if (previous.some((entry) => entry.accountId !== account.id || entry.kind !== 'DEBIT') || !total.eq(amount)) {
      throw keyReused(input.idempotencyKey);
    }
    return {
      covered: previous.find((entry) => entry.idempotencyKey === input.idempotencyKey) ?? null,
      overdraft: previous.find((entry) => entry.overdraftDraft !== null)?.overdraftDraft ?? null,
    };
  }
  const balance = await storeCreditBalance(tx, account.id);
  const available = balance.gt(0) ? balance : money(0);
  const coveredAmount = amount.lt(available) ? amount : available;
  const short = amount.sub(coveredAmount);
  if (short.gt(0) && input.overdraft === undefined) {
    throw new DomainError(
      'CONFLICT',
      `store credit account ${account.id} holds ${moneyString(balance, account.currency)} ${account.currency}, less than the ${moneyString(amount, account.currency)} asked`,
      {
        field: 'amount',
        balance: moneyString(balance, account.currency),
      },
    );
  }
  const debit = (status: 'POSTED' | 'PENDING', value: Money, idempotencyKey: string) =>
    tx.storeCreditEntry.create({
      data: {
        accountId: account.id,
        kind: 'DEBIT',
        status,
        amount: value,
        idempotencyKey,
        note: input.note,
        orderId: input.orderId ?? null,
      },
    });
  let covered: StoreCreditEntry | null = null;
  if (coveredAmount.gt(0)) {
    covered = await debit('POSTED', coveredAmount, input.idempotencyKey);
    await recordEntry(tx, deps, account, covered, null);
  }
  let overdraft: StoreCreditOverdraftDraft | null = null;
  if (short.gt(0) && input.overdraft !== undefined) {
    const held = await debit('PENDING', short, overdraftKey(input.idempotencyKey));
    overdraft = await tx.storeCreditOverdraftDraft.create({
      data: {
        accountId: account.id,
        entryId: held.id,
        reason: input.overdraft.reason,
        status: 'DRAFT',
        amount: short,
        expiresAt: input.overdraft.expiresAt,
      },
    });
    await recordEntry(tx, deps, account, held, overdraft.id);
  }
  return { covered, overdraft };
}

/**
 * Expires up to `limit` overdraft drafts past their expiry as of `asOf`: each draft's pending debit
 * is voided, so the balance comes back up by what it overdrew. Drafts another sweep holds are
 * skipped; an expired draft is never touched again (GcExpiredOverdraftDraftsWorkflow's pass).
 */
export async function expireOverdraftDrafts(
  tx: Tx,
  deps: DomainDeps,
  input: { asOf: Date; limit: number },
): Promise<{ expired: number; more: boolean }> {
  const due = await tx.$queryRaw<{ id: bigint; account_id: bigint; entry_id: bigint; status: OverdraftDraftStatus }[]>`
    SELECT id, account_id, entry_id, status::text AS status FROM store_credit_overdraft_drafts
     WHERE status = 'DRAFT' AND expires_at <= ${input.asOf}
     ORDER BY expires_at, id LIMIT ${input.limit} FOR UPDATE SKIP LOCKED`;
  for (const draft of due) {
    const account = await lockedAccount(tx, draft.account_id);
    await tx.storeCreditOverdraftDraft.update({
      where: { id: draft.id },
      data: { status: overdraftDraftMachine.next(draft.id, draft.status, 'expire') },
    });
    const voided = await tx.storeCreditEntry.update({ where: { id: draft.entry_id }, data: { status: 'VOIDED' } });
    await recordEntry(tx, deps, account, voided, draft.id);
  }
  return { expired: due.length, more: due.length === input.limit };
}

/** The customer's account in this currency, or null when nothing was ever credited to it. */
export function findStoreCreditAccount(db: Tx, customerId: bigint, currency: string): Promise<StoreCreditAccount | null> {
  return db.storeCreditAccount.findUnique({ where: { customerId_currency: { customerId, currency } } });
}

/** An account's entries, newest first, at most `first`. */
export function storeCreditEntries(db: Tx, accountId: bigint, first: number): Promise<StoreCreditEntry[]> {
  return db.storeCreditEntry.findMany({ where: { accountId }, orderBy: { id: 'desc' }, take: first });
}

/** The customer's balance in each currency they have credit in. */
export async function customerStoreCreditBalances(db: Tx, customerId: bigint): Promise<{ account: StoreCreditAccount; balance: Money }[]> {
  const accounts = await db.storeCreditAccount.findMany({ where: { customerId }, orderBy: { currency: 'asc' } });
  return Promise.all(accounts.map(async (account) => ({ account, balance: await storeCreditBalance(db, account.id) })));
}

/** The keys of store credit spent at checkout and given back, stable across retries (docs/money.md). */
export const storeCreditKeys = {
  /** The cart converts once, and the shopper's retried checkout sends the same checkout key. */
  spend: (cartId: bigint, checkoutKey: string): string => `spend:cart:${cartId}:${checkoutKey}`,
  /** As `spend`, for the gift card the checkout names: a checkout may take both. */
  spendGiftCard: (cartId: bigint, checkoutKey: string): string => `spend:gift_card:cart:${cartId}:${checkoutKey}`,
  /** A cancelled order's store credit or gift card tender is credited back once. */
  cancelCredit: (tenderId: bigint): string => `credit:cancel:${tenderId}`,
};

export interface CheckoutSpend {
  readonly cartId: bigint;
  readonly orderId: bigint;
  /** The placeOrder request's idempotency key. */
  readonly checkoutKey: string;
  /** What is still to pay. */
  readonly total: Money;
  readonly currency: string;
}

/**
 * Debits what the account's balance covers of `total`, under the account's lock, and records it
 * as a CAPTURED tender (the debit is final at once, nothing is left to capture). Null when the
 * balance is zero or less.
 */
async function spendAtCheckout(
  tx: Tx,
  deps: DomainDeps,
  accountId: bigint,
  kind: 'STORE_CREDIT' | 'GIFT_CARD',
  idempotencyKey: string,
  input: CheckoutSpend,
): Promise<PaymentTender | null> {
  const account = await lockedAccount(tx, accountId);
  const balance = await storeCreditBalance(tx, account.id);
  if (balance.lte(0)) return null;
  const amount = balance.lt(input.total) ? balance : input.total;
  const { covered } = await debitStoreCredit(tx, deps, {
    accountId: account.id,
    amount: moneyString(amount, account.currency),
    note: `spent on order ${input.orderId}`,
    idempotencyKey,
    orderId: input.orderId,
  });
  if (covered === null)
    throw new Error(
      `store credit account ${account.id} held ${moneyString(balance, account.currency)} under its lock, yet the debit covered nothing`,
    );
  return tx.paymentTender.create({
    data: {
      cartId: input.cartId,
      orderId: input.orderId,
      kind,
      status: 'CAPTURED',
      currency: input.currency,
      authorizedAmount: amount,
      capturedAmount: amount,
      gatewayReference: `store_credit_entry:${covered.id}`,
      idempotencyKey,
    },
  });
}

/** The customer's store credit, spent as a STORE_CREDIT tender; null when they have none in the order's currency. */
export async function spendStoreCreditAtCheckout(
  tx: Tx,
  deps: DomainDeps,
  customerId: bigint,
  input: CheckoutSpend,
): Promise<PaymentTender | null> {
  const found = await findStoreCreditAccount(tx, customerId, input.currency);
  return found === null
    ? null
    : spendAtCheckout(tx, deps, found.id, 'STORE_CREDIT', storeCreditKeys.spend(input.cartId, input.checkoutKey), input);
}

/** The gift card a checkout names; refused when the code is unknown or the card in another currency. */
async function giftCardForCheckout(tx: Tx, code: string, currency: string): Promise<StoreCreditAccount> {
  const account = await findGiftCard(tx, code);
  if (account === null) throw new DomainError('NOT_FOUND', 'no gift card has this code', { field: 'giftCardCode' });
  if (account.currency !== currency) {
    throw new DomainError('BAD_USER_INPUT', `the gift card is in ${account.currency}, the order in ${currency}`, { field: 'giftCardCode' });
  }
  return account;
}

const giftCardUsedUp = (): DomainError =>
  new DomainError('BAD_USER_INPUT', 'the gift card has nothing left on it', { field: 'giftCardCode' });

/** A gift card's balance, spent as a GIFT_CARD tender; refused when the code is unknown, in another currency or used up. */
export async function spendGiftCardAtCheckout(tx: Tx, deps: DomainDeps, code: string, input: CheckoutSpend): Promise<PaymentTender> {
  const account = await giftCardForCheckout(tx, code, input.currency);
  const tender = await spendAtCheckout(
    tx,
    deps,
    account.id,
    'GIFT_CARD',
    storeCreditKeys.spendGiftCard(input.cartId, input.checkoutKey),
    input,
  );
  if (tender === null) throw giftCardUsedUp();
  return tender;
}

/**
 * What the gift card and the customer's store credit would pay of `total` now, read without a lock
 * or a debit: checkout authorizes the card for the rest before the order's transaction spends them
 * (which then finds out whether the balances still cover as much). Refuses a gift card as
 * spendGiftCardAtCheckout does.
 */
export async function creditCoverAtCheckout(
  tx: Tx,
  input: { giftCardCode?: string | undefined; storeCreditOf: bigint | null; total: Money; currency: string },
): Promise<Money> {
  let rest = input.total;
  const cover = (balance: Money) => (balance.lte(0) ? money(0) : balance.lt(rest) ? balance : rest);
  if (input.giftCardCode !== undefined) {
    const covered = cover(await storeCreditBalance(tx, (await giftCardForCheckout(tx, input.giftCardCode, input.currency)).id));
    if (covered.lte(0)) throw giftCardUsedUp();
    rest = rest.sub(covered);
  }
  if (input.storeCreditOf !== null && rest.gt(0)) {
    const account = await findStoreCreditAccount(tx, input.storeCreditOf, input.currency);
    if (account !== null) rest = rest.sub(cover(await storeCreditBalance(tx, account.id)));
  }
  return input.total.sub(rest);
}

/** Upper case without spaces or dashes, as codes are stored: what a shopper types is matched however they grouped it. */
const normalizedCode = (code: string): string => code.replaceAll(/[\s-]/g, '').toUpperCase();

export function findGiftCard(db: Tx, code: string): Promise<StoreCreditAccount | null> {
  return db.storeCreditAccount.findUnique({ where: { code: normalizedCode(code) } });
}

/** 16 characters of RFC 4648 base32 (80 random bits): too many to guess, easy to type. */
function newGiftCardCode(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bytes = randomBytes(16);
  return [...bytes].map((byte) => alphabet[byte % 32]).join('');
}

export interface IssueGiftCard {
  readonly currency: string;
  readonly amount: string;
  readonly note: string;
  readonly idempotencyKey: string;
  readonly staffUserId?: bigint;
}

/**
 * Creates a gift card: an account with a new code and no customer, credited `amount`. Retried
 * with the same key: the card the first request created, credited once.
 */
export async function issueGiftCard(tx: Tx, deps: DomainDeps, input: IssueGiftCard): Promise<StoreCreditAccount & { code: string }> {
  const currency = requireCurrency(input.currency);
  const amount = requirePositiveAmount(input.amount, currency);
  const note = requireText('note', input.note, LIMITS.storeCreditNote);
  const idempotencyKey = requireText('idempotencyKey', input.idempotencyKey, LIMITS.idempotencyKey);
  const earlier = await tx.storeCreditEntry.findUnique({ where: { idempotencyKey }, include: { account: true } });
  if (earlier !== null) {
    const { code } = earlier.account;
    if (code === null || earlier.kind !== 'CREDIT' || !earlier.amount.eq(amount) || earlier.account.currency !== currency) {
      throw keyReused(idempotencyKey);
    }
    return { ...earlier.account, code };
  }
  const code = newGiftCardCode();
  const account = await tx.storeCreditAccount.create({ data: { code, currency } });
  const entry = await tx.storeCreditEntry.create({
    data: { accountId: account.id, kind: 'CREDIT', status: 'POSTED', amount, idempotencyKey, note, staffUserId: input.staffUserId ?? null },
  });
  await recordEntry(tx, deps, account, entry, null);
  return { ...account, code };
}

/** The account a STORE_CREDIT or GIFT_CARD tender was spent from: its ledger debit's. */
export async function accountOfStoreCreditTender(tx: Tx, tender: PaymentTender): Promise<bigint> {
  const debit = await tx.storeCreditEntry.findUnique({ where: { idempotencyKey: tender.idempotencyKey }, select: { accountId: true } });
  if (debit === null) throw new Error(`store credit tender ${tender.id} has no ledger debit under ${tender.idempotencyKey}`);
  return debit.accountId;
}

export interface CreditBack {
  readonly accountId: bigint;
  readonly amount: Money;
  readonly idempotencyKey: string;
  readonly note: string;
  readonly orderId: bigint | null;
}

/** A posted CREDIT giving an order's money back to an account, once per key (a retry answers the first entry). */
export async function creditBack(tx: Tx, deps: DomainDeps, input: CreditBack): Promise<StoreCreditEntry> {
  const account = await lockedAccount(tx, input.accountId);
  const replayed = await replayedEntry(tx, input.idempotencyKey, account.id, 'CREDIT', input.amount);
  if (replayed !== null) return replayed;
  const entry = await tx.storeCreditEntry.create({
    data: {
      accountId: account.id,
      kind: 'CREDIT',
      status: 'POSTED',
      amount: input.amount,
      idempotencyKey: input.idempotencyKey,
      note: input.note,
      orderId: input.orderId,
    },
  });
  await recordEntry(tx, deps, account, entry, null);
  return entry;
}

/**
 * Credits back what a STORE_CREDIT or GIFT_CARD tender took and has not given back, to the account it was spent
 * from, once (its key is the tender's). The caller holds the tender's lock and marks it REFUNDED.
 */
export async function creditBackStoreCreditTender(tx: Tx, deps: DomainDeps, tender: PaymentTender): Promise<void> {
  await creditBack(tx, deps, {
    accountId: await accountOfStoreCreditTender(tx, tender),
    amount: tender.capturedAmount.sub(tender.refundedAmount),
    idempotencyKey: storeCreditKeys.cancelCredit(tender.id),
    note: `order ${tender.orderId} cancelled`,
    orderId: tender.orderId,
  });
}
