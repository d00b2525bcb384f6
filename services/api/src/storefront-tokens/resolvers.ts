import { createStorefrontToken, listStorefrontTokens, revokeStorefrontToken } from '@shop/domain/storefront-tokens';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { parseId } from '../graphql/ids.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { storefrontTokenView } from './views.ts';

export const storefrontTokenResolvers: Resolvers = {
  Query: {
    storefrontTokens: staffField(async (_args, { tx }) => (await listStorefrontTokens(tx)).map(storefrontTokenView)),
  },
  Mutation: {
    createStorefrontToken: staffField(async ({ name }, { tx, staffUserId }, context) => {
      const created = await createStorefrontToken(tx, { name, staffUserId, now: context.shop.services.deps.now() });
      context.app.storefrontTokens?.refresh();
      return { token: created.token, storefrontToken: storefrontTokenView(created.storefrontToken) };
    }),
    revokeStorefrontToken: staffField(async ({ id }, { tx }, context) => {
      const revoked = await revokeStorefrontToken(tx, parseId(id, 'id'), context.shop.services.deps.now());
      context.app.storefrontTokens?.forget(revoked.id);
      return storefrontTokenView(revoked);
    }),
  },
};
