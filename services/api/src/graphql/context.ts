import type { FastifyRequest } from 'fastify';
import type { PrismaClient, RunTransaction } from '@shop/platform';
import { DomainError, type CustomerPrincipal, type DomainDeps, type Shopper, type StaffPrincipal, type TokenSettings } from '@shop/domain';
import { identityOf, type RequestIdentity } from '../auth/request-auth.ts';

/** What resolvers use besides the request: the database, the outbox's transactions and the token settings. */
export interface ApiServices {
  readonly prisma: PrismaClient;
  /** Business operations run in it, so the events they emit commit with the change. */
  readonly transaction: RunTransaction;
  readonly deps: DomainDeps;
  readonly tokens: TokenSettings;
}

/** One request's view: who asks, for which shopper and channel, and the services. */
export interface RequestScope extends RequestIdentity {
  readonly services: ApiServices;
  /** The signed-in customer and/or the guest's X-Session-ID. */
  readonly shopper: Shopper;
  /** The storefront channel: a customer's own, else X-Channel-ID (id or code); BAD_USER_INPUT without one. */
  channelId(): Promise<bigint>;
  /** The signed-in customer, or UNAUTHENTICATED. */
  customer(): CustomerPrincipal;
  /** The signed-in staff user, or UNAUTHENTICATED (permissions are checked per operation). */
  staff(): StaffPrincipal;
}

declare module 'mercurius' {
  interface MercuriusContext {
    readonly shop: RequestScope;
  }
}

const NUMERIC = /^[1-9][0-9]{0,18}$/;

async function channelFrom(prisma: PrismaClient, reference: string | undefined): Promise<bigint> {
  if (reference === undefined) {
    throw new DomainError('BAD_USER_INPUT', 'say which channel: send the X-Channel-ID header with a channel id or code, e.g. X-Channel-ID: web', {
      field: 'X-Channel-ID',
    });
  }
  const where = NUMERIC.test(reference) && BigInt(reference) < 2n ** 63n ? { id: BigInt(reference) } : { code: reference };
  const channel = await prisma.channel.findUnique({ where, select: { id: true } });
  if (channel === null) throw new DomainError('NOT_FOUND', `channel ${reference} does not exist`, { field: 'X-Channel-ID' });
  return channel.id;
}

export function requestScope(request: FastifyRequest, services: ApiServices): RequestScope {
  const identity = identityOf(request);
  const { principal } = identity;
  let channel: Promise<bigint> | undefined;
  return {
    ...identity,
    services,
    shopper: {
      ...(principal?.kind === 'customer' ? { customerId: principal.customerId } : {}),
      ...(identity.sessionId === undefined ? {} : { sessionId: identity.sessionId }),
    },
    channelId() {
      if (principal?.kind === 'customer') return Promise.resolve(principal.channelId);
      channel ??= channelFrom(services.prisma, identity.channel);
      return channel;
    },
    customer() {
      if (principal?.kind !== 'customer') throw new DomainError('UNAUTHENTICATED', 'sign in as a customer to do this');
      return principal;
    },
    staff() {
      if (principal?.kind !== 'staff') throw new DomainError('UNAUTHENTICATED', 'sign in as staff to do this');
      return principal;
    },
  };
}
