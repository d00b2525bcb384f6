import { type Tx } from '@shop/domain/kernel';
import {
  customerStoreCreditBalances,
  findStoreCreditAccount,
  type IssueGiftCard,
  issueGiftCard,
  type IssueStoreCredit,
  issueStoreCredit,
  storeCreditBalance,
  storeCreditEntries,
} from '@shop/domain/store-credit';
import type { IssueGiftCardInput, IssueStoreCreditInput, Resolvers } from '../graphql/generated/resolver-types.ts';
import { parseId, pageSize } from '../graphql/ids.ts';
import { inputMapper, same } from '../graphql/inputs.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { storeCreditAccountView, storeCreditEntryView } from './views.ts';

async function accountView(db: Tx, customerId: bigint, currency: string) {
  const account = await findStoreCreditAccount(db, customerId, currency);
  return account === null ? null : storeCreditAccountView(account, await storeCreditBalance(db, account.id));
}

const storeCreditIssue = inputMapper<IssueStoreCreditInput, IssueStoreCredit>({
  customerId: parseId,
  currency: same,
  amount: same,
  note: same,
  idempotencyKey: same,
});
const giftCardIssue = inputMapper<IssueGiftCardInput, IssueGiftCard>({ currency: same, amount: same, note: same, idempotencyKey: same });

export const storeCreditResolvers: Resolvers = {
  Query: {
    storeCreditAccount: staffField(async ({ customerId, currency }, { tx }) =>
      accountView(tx, parseId(customerId, 'customerId'), currency),
    ),
    async myStoreCredit(_root, _args, context) {
      const balances = await customerStoreCreditBalances(context.shop.services.prisma, context.shop.customer().customerId);
      return balances.map(({ account, balance }) => ({
        currency: account.currency,
        balance: storeCreditAccountView(account, balance).balance,
      }));
    },
  },
  Mutation: {
    issueStoreCredit: staffField(async ({ input }, { tx, staffUserId }, context) => {
      const issue = storeCreditIssue(input);
      await issueStoreCredit(tx, context.shop.services.deps, { ...issue, staffUserId });
      const view = await accountView(tx, issue.customerId, issue.currency);
      if (view === null) throw new Error(`the account credited for customer ${issue.customerId} is missing`);
      return view;
    }),
    issueGiftCard: staffField(async ({ input }, { tx, staffUserId }, context) => {
      const card = await issueGiftCard(tx, context.shop.services.deps, { ...giftCardIssue(input), staffUserId });
      return {
        code: card.code,
        currency: card.currency,
        balance: storeCreditAccountView(card, await storeCreditBalance(tx, card.id)).balance,
      };
    }),
  },
  StoreCreditAccount: {
    async entries(account, { first }, context) {
      const entries = await storeCreditEntries(context.shop.services.prisma, BigInt(account.id), pageSize(first));
      return entries.map((entry) => storeCreditEntryView(entry, account.currency));
    },
  },
};
