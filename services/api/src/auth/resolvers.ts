import {
  authenticateStaff,
  issueGuestSessionId,
  issueTokens,
  refreshTokens,
  revokeRefreshToken,
  signedInStaff,
  staffPrincipal,
} from '@shop/domain/auth';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { inTransaction } from '../graphql/context.ts';
import { boundedCredentials } from './credentials.ts';
import { withPasswordQueue } from './password-queue.ts';
import { staffView, tokenPairView } from './views.ts';

/** Staff sign-in, the token pair every sign-in (staff or customer) refreshes and ends with, and guest sessions. */
export const authResolvers: Resolvers = {
  Query: {
    async staffMe(_root, _args, context) {
      const { staff, permissions } = await signedInStaff(context.shop.services.prisma, context.shop.staff().staffUserId);
      return staffView(staff, permissions);
    },
  },
  Mutation: {
    async loginStaff(_root, args, context) {
      const { email, password } = boundedCredentials(args);
      // The password check (about 0.3 s of scrypt) holds no transaction, so sign-ins cannot drain the pool.
      const staff = await withPasswordQueue(context, () => authenticateStaff(context.shop.services.prisma, email, password));
      return inTransaction(context, async (tx) =>
        tokenPairView(await issueTokens(tx, staffPrincipal(staff), context.shop.services.tokens)),
      );
    },
    async refreshToken(_root, { refreshToken }, context) {
      const { prisma, tokens } = context.shop.services;
      return tokenPairView(await refreshTokens(prisma, refreshToken, tokens));
    },
    async logout(_root, { refreshToken }, context) {
      return inTransaction(context, (tx) => revokeRefreshToken(tx, refreshToken, context.shop.services.tokens));
    },
    startGuestSession(_root, _args, context) {
      return issueGuestSessionId(context.shop.services.tokens);
    },
  },
};
