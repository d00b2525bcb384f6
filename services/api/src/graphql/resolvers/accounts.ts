import {
  authenticateCustomer,
  authenticateStaff,
  approveBusinessCustomer,
  customerPrincipal,
  DomainError,
  issueTokens,
  PASSWORD_MAX_LENGTH,
  permissionsOf,
  refreshTokens,
  registerCustomer,
  rejectBusinessCustomer,
  revokeRefreshToken,
  staffPrincipal,
  type CustomerAccount,
} from '@shop/domain';
import type { IResolvers } from 'mercurius';
import { parseId } from '../ids.ts';
import { customerView, staffView, tokenPairView } from '../views.ts';
import { asStaff, inTransaction, type Context } from './common.ts';

interface RegisterArgs {
  readonly input: { email: string; password: string; firstName?: string | null; lastName?: string | null; isBusiness?: boolean | null };
}

interface Credentials {
  readonly email: string;
  readonly password: string;
}

/** Bounds the strings a sign-in compares before any work is spent on them. */
function credentials({ email, password }: Credentials): Credentials {
  if (email.length > 320) throw new DomainError('BAD_USER_INPUT', 'email must be at most 320 characters', { field: 'email' });
  if ([...password].length > PASSWORD_MAX_LENGTH) {
    throw new DomainError('BAD_USER_INPUT', `password must be at most ${PASSWORD_MAX_LENGTH} characters`, { field: 'password' });
  }
  return { email, password };
}

const WITHOUT_SECRETS = { passwordHash: true } as const;

export const accountResolvers: IResolvers = {
  Query: {
    async me(_root: unknown, _args: unknown, context: Context) {
      const { customerId } = context.shop.customer();
      const customer: CustomerAccount | null = await context.shop.services.prisma.customer.findUnique({ where: { id: customerId }, omit: WITHOUT_SECRETS });
      if (customer === null) throw new DomainError('UNAUTHENTICATED', 'this customer account no longer exists');
      return customerView(customer);
    },
    async staffMe(_root: unknown, _args: unknown, context: Context) {
      const { staffUserId } = context.shop.staff();
      const { prisma } = context.shop.services;
      const staff = await prisma.staffUser.findUnique({ where: { id: staffUserId }, omit: WITHOUT_SECRETS });
      if (staff === null || !staff.active) throw new DomainError('UNAUTHENTICATED', 'this staff account can no longer sign in');
      return staffView(staff, await permissionsOf(prisma, staffUserId));
    },
  },
  Mutation: {
    async registerCustomer(_root: unknown, { input }: RegisterArgs, context: Context) {
      const channelId = await context.shop.channelId();
      const { deps, tokens } = context.shop.services;
      return inTransaction(context, async (tx) => {
        const customer = await registerCustomer(tx, deps, { ...input, isBusiness: input.isBusiness ?? false, channelId });
        return tokenPairView(await issueTokens(tx, customerPrincipal(customer), tokens));
      });
    },
    async loginCustomer(_root: unknown, args: Credentials, context: Context) {
      const { email, password } = credentials(args);
      const channelId = await context.shop.channelId();
      return inTransaction(context, async (tx) => {
        const customer = await authenticateCustomer(tx, channelId, email, password);
        return tokenPairView(await issueTokens(tx, customerPrincipal(customer), context.shop.services.tokens));
      });
    },
    async loginStaff(_root: unknown, args: Credentials, context: Context) {
      const { email, password } = credentials(args);
      return inTransaction(context, async (tx) => {
        const staff = await authenticateStaff(tx, email, password);
        return tokenPairView(await issueTokens(tx, staffPrincipal(staff), context.shop.services.tokens));
      });
    },
    async refreshToken(_root: unknown, { refreshToken }: { refreshToken: string }, context: Context) {
      const { prisma, tokens } = context.shop.services;
      return tokenPairView(await refreshTokens(prisma, refreshToken, tokens));
    },
    async logout(_root: unknown, { refreshToken }: { refreshToken: string }, context: Context) {
      return inTransaction(context, (tx) => revokeRefreshToken(tx, refreshToken, context.shop.services.tokens));
    },
    async approveBusinessCustomer(_root: unknown, { id }: { id: string }, context: Context) {
      const customerId = parseId(id, 'id');
      return customerView(await asStaff(context, 'customers.manage', (tx) => approveBusinessCustomer(tx, context.shop.services.deps, customerId)));
    },
    async rejectBusinessCustomer(_root: unknown, { id }: { id: string }, context: Context) {
      const customerId = parseId(id, 'id');
      return customerView(await asStaff(context, 'customers.manage', (tx) => rejectBusinessCustomer(tx, context.shop.services.deps, customerId)));
    },
  },
};
