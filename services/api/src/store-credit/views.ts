import type { Prisma, StoreCreditAccount, StoreCreditEntry } from '@shop/platform';
import { moneyString } from '@shop/domain/kernel';
import { iso } from '../graphql/iso.ts';

/** Its entries come from the StoreCreditAccount.entries resolver. */
export interface StoreCreditAccountView {
  readonly id: string;
  readonly customerId: string | null;
  readonly currency: string;
  readonly balance: string;
}

export const storeCreditAccountView = (account: StoreCreditAccount, balance: Prisma.Decimal): StoreCreditAccountView => ({
  id: account.id.toString(),
  customerId: account.customerId?.toString() ?? null,
  currency: account.currency,
  balance: moneyString(balance, account.currency),
});

export interface StoreCreditEntryView {
  readonly id: string;
  readonly kind: StoreCreditEntry['kind'];
  readonly status: StoreCreditEntry['status'];
  readonly amount: string;
  readonly note: string;
  readonly orderId: string | null;
  readonly staffUserId: string | null;
  readonly createdAt: string;
}

export const storeCreditEntryView = (entry: StoreCreditEntry, currency: string): StoreCreditEntryView => ({
  id: entry.id.toString(),
  kind: entry.kind,
  status: entry.status,
  amount: moneyString(entry.amount, currency),
  note: entry.note,
  orderId: entry.orderId?.toString() ?? null,
  staffUserId: entry.staffUserId?.toString() ?? null,
  createdAt: iso(entry.createdAt),
});
