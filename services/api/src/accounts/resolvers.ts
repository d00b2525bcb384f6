import {
  approveBusinessCustomer,
  authenticateCustomer,
  captureLead,
  registerCustomer,
  rejectBusinessCustomer,
  signedInCustomer,
} from '@shop/domain/accounts';
import { customerPrincipal, issueTokens } from '@shop/domain/auth';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { inTransaction } from '../graphql/context.ts';
import { parseId } from '../graphql/ids.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { boundedCredentials } from '../auth/credentials.ts';
import { withPasswordQueue } from '../auth/password-queue.ts';
import { tokenPairView } from '../auth/views.ts';
import { customerView, leadView } from './views.ts';

/** Customers (sign-up, sign-in, business approval) and leads. */
export const accountResolvers: Resolvers = {
  Query: {
    async me(_root, _args, context) {
      return customerView(await signedInCustomer(context.shop.services.prisma, context.shop.customer().customerId));
    },
  },
  Mutation: {
    async registerCustomer(_root, { input }, context) {
      const channelId = await context.shop.channelId();
      const { deps, tokens } = context.shop.services;
      return withPasswordQueue(context, () =>
        inTransaction(context, async (tx) => {
          const customer = await registerCustomer(tx, deps, { ...input, isBusiness: input.isBusiness ?? false, channelId });
          return tokenPairView(await issueTokens(tx, customerPrincipal(customer), tokens));
        }),
      );
    },
    async loginCustomer(_root, args, context) {
      const { email, password } = boundedCredentials(args);
      const channelId = await context.shop.channelId();
      // The password check (about 0.3 s of scrypt) holds no transaction, so sign-ins cannot drain the pool.
      const customer = await withPasswordQueue(context, () =>
        authenticateCustomer(context.shop.services.prisma, channelId, email, password),
      );
      return inTransaction(context, async (tx) =>
        tokenPairView(await issueTokens(tx, customerPrincipal(customer), context.shop.services.tokens)),
      );
    },
    async captureLead(_root, { input }, context) {
      const channelId = await context.shop.channelId();
      return leadView(await inTransaction(context, (tx) => captureLead(tx, context.shop.services.deps, { ...input, channelId })));
    },
    approveBusinessCustomer: staffField(async ({ id }, { tx }, context) =>
      customerView(await approveBusinessCustomer(tx, context.shop.services.deps, parseId(id, 'id'))),
    ),
    rejectBusinessCustomer: staffField(async ({ id }, { tx }, context) =>
      customerView(await rejectBusinessCustomer(tx, context.shop.services.deps, parseId(id, 'id'))),
    ),
  },
};
