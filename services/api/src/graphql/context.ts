import type { FastifyRequest } from 'fastify';
import type { MercuriusContext } from 'mercurius';
import type { DiscoveredExtension, MasterKeyring, PrismaClient, RunTransaction, SearchEngines, StorefrontSearchKeys } from '@shop/platform';
import type { FileStorage } from '@shop/platform/storage';
import { type CustomerPrincipal, type StaffPrincipal, type TokenSettings } from '@shop/domain/auth';
import { type SqlReader } from '@shop/domain/catalog';
import { DomainError, type DomainDeps, type Shopper, type Tx } from '@shop/domain/kernel';
import { identityOf, type RequestIdentity } from '../auth/request-auth.ts';
import type { ChannelDirectory, KnownChannel } from './channels.ts';

/** What resolvers use besides the request: the database, the outbox's transactions and the token settings. */
export interface ApiServices {
  readonly prisma: PrismaClient;
  /** Business operations run in it, so the events they emit commit with the change. */
  readonly transaction: RunTransaction;
  readonly deps: DomainDeps;
  readonly tokens: TokenSettings;
  /** SECRETS_MASTER_KEY and the keys rotating from: stored secrets are sealed and opened with them. */
  readonly masterKeys: MasterKeyring;
  /** The connection pool, for the storefront's catalog reads (in SQL, see @shop/domain's storefront-reads.ts). */
  readonly sql: SqlReader;
  /** Channels by id or code, cached per process (see ChannelDirectory for why that is safe). */
  readonly channels: ChannelDirectory;
  /** The engines of the admin and the storefront search index. */
  readonly search: SearchEngines;
  /** Scoped storefront search keys for BFFs: only when the storefront index is in Meilisearch with STOREFRONT_SEARCH_ONLY_KEY set. */
  readonly searchKeys: StorefrontSearchKeys | undefined;
  /** The discovered extensions: their declared settings are read and set through GraphQL. */
  readonly extensions: readonly DiscoveredExtension[];
  /** Where product images live (FILE_STORAGE_PROVIDER); null in production without a storage extension configured. */
  readonly fileStorage: FileStorage | null;
}

/** One request's view: who asks, for which shopper and channel, and the services. */
export interface RequestScope extends RequestIdentity {
  readonly services: ApiServices;
  /** The signed-in customer and/or the guest's X-Session-ID. */
  readonly shopper: Shopper;
  /** The storefront channel: a customer's own, else X-Channel-ID (id or code); BAD_USER_INPUT without one. */
  channelId(): Promise<bigint>;
  /** The same channel with its default currency. */
  knownChannel(): Promise<KnownChannel>;
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

export function requestScope(request: FastifyRequest, services: ApiServices): RequestScope {
  const identity = identityOf(request);
  const { principal } = identity;
  let channel: Promise<KnownChannel> | undefined;
  const channelOfRequest = () =>
    (channel ??=
      principal?.kind === 'customer' ? services.channels.byId(principal.channelId) : services.channels.byReference(identity.channel));
  return {
    ...identity,
    services,
    shopper: {
      ...(principal?.kind === 'customer' ? { customerId: principal.customerId } : {}),
      ...(identity.sessionId === undefined ? {} : { sessionId: identity.sessionId }),
    },
    channelId() {
      if (principal?.kind === 'customer') return Promise.resolve(principal.channelId);
      return channelOfRequest().then((known) => known.id);
    },
    knownChannel: channelOfRequest,
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

/** A business operation: one transaction of the outbox, so its events commit with it. */
export function inTransaction<T>(context: MercuriusContext, work: (tx: Tx) => Promise<T>): Promise<T> {
  return context.shop.services.transaction(work);
}
