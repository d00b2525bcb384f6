import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import {
  createEmitter,
  domainDeps,
  openRateLimiter,
  outboxMetrics,
  searchEnginesFor,
  storefrontSearchKeys,
  type DiscoveredExtension,
  type Emitter,
  type RunningOutbox,
} from '@shop/platform';
import type { DomainDeps } from '@shop/domain/kernel';
import { STOREFRONT_INDEX } from '@shop/domain/search';
import { coreStorageRegistry, openFileStorage, type FileStorage } from '@shop/platform/storage';
import { echoRequestId, requestIdFor } from './http/request-id.ts';
import { logEveryRequest } from './http/access-log.ts';
import { measureHttp } from './http/http-metrics.ts';
import { answerErrorsAsJson } from './http/errors.ts';
import { closeIdleConnectionsWhileDraining } from './http/close-idle-connections.ts';
import { metricsRoute } from './http/metrics-route.ts';
import { ClientAddress } from './http/client-address.ts';
import { clientAddressCaller, graphqlMutationCharges, rateLimit } from './http/rate-limit/index.ts';
import { graphqlPlugin } from './graphql/graphql-plugin.ts';
import { servePersistedQueries } from './graphql/persisted-queries.ts';
import { ChannelDirectory } from './graphql/channels.ts';
import type { ApiServices } from './graphql/context.ts';
import type { AppPlatform, AreaPlugin } from './area-plugin.ts';
import { tokenSettingsOf } from './auth/token-settings-of.ts';
import { identityOf } from './auth/request-auth.ts';
import { CORE_AREAS } from './core-areas.ts';
import { bffRequests } from './storefront-tokens/bff-requests.ts';
import { serveFileStorage } from './storage/api-file-storage.ts';

export type { AppPlatform } from './area-plugin.ts';

export interface AppOptions {
  /**
   * The process's running outbox (main.ts starts it): business operations run in its transactions
   * so their events commit with the change. Without one the app writes events through an emitter
   * of its own, and whichever outbox runs later relays them.
   */
  readonly outbox?: Pick<RunningOutbox, 'emit' | 'transaction'>;
  /** What the domain's operations run with, built over `outbox`'s emit (serve.ts shares them with the in-process sweeps); absent: built here. */
  readonly deps?: DomainDeps;
  /** Areas registered after the core ones: the extensions' (serve.ts loads them). */
  readonly areas?: readonly AreaPlugin[];
  /**
   * The file storage FILE_STORAGE_PROVIDER selects (serve.ts includes the extensions' providers; null:
   * none, as in production without a storage extension); when absent, selected among the core's alone.
   */
  readonly fileStorage?: FileStorage | null;
  /** The discovered extensions (serve.ts), whose settings staff read and set; none when absent. */
  readonly extensions?: readonly DiscoveredExtension[];
}

function outboxOf(platform: AppPlatform, options: AppOptions): Pick<RunningOutbox, 'emit' | 'transaction'> {
  if (options.outbox !== undefined) return options.outbox;
  const { config, logger, metrics, database } = platform;
  // Created at the first use: the outbox metrics it registers query tables that must exist by then.
  let emitter: Emitter | undefined;
  const emitterOf = () =>
    (emitter ??= createEmitter({ mode: config.eventSchemaMode, logger, metrics: outboxMetrics(metrics, database.pool) }));
  return {
    // Forwarded whole: the event names are checked where the resolvers emit them.
    emit: (...args) => emitterOf().emit(...args),
    transaction: (work, transactionOptions) => emitterOf().transaction(database.prisma, work, transactionOptions),
  };
}

/** Builds the HTTP app over an opened platform; the caller listens and closes. */
export async function buildApp(platform: AppPlatform, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: platform.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: requestIdFor,
    forceCloseConnections: 'idle',
    // request.ip follows the same rule as /track and the rate limits: every forwarder, or TRUSTED_PROXIES.
    trustProxy: platform.config.trustedProxies === undefined ? true : [...platform.config.trustedProxies],
  });
  echoRequestId(app);
  logEveryRequest(app);
  measureHttp(app, platform.metrics);
  answerErrorsAsJson(app);
  closeIdleConnectionsWhileDraining(app);
  await limitRates(app, platform);
  metricsRoute(app, platform.metrics);
  const outbox = outboxOf(platform, options);
  const fileStorage =
    options.fileStorage === undefined
      ? ((await openFileStorage(coreStorageRegistry(), platform.config, platform.logger)) ?? null)
      : options.fileStorage;
  const services: ApiServices = {
    prisma: platform.database.prisma,
    transaction: outbox.transaction,
    deps: options.deps ?? domainDeps(platform, outbox.emit),
    tokens: tokenSettingsOf(platform.config),
    masterKeys: platform.masterKeys,
    sql: platform.database.pool,
    channels: new ChannelDirectory(platform.database.prisma),
    search: searchEnginesFor(platform.config, platform.database.prisma),
    searchKeys: storefrontSearchKeys(platform.config, STOREFRONT_INDEX),
    extensions: options.extensions ?? [],
    fileStorage,
  };
  const { config } = platform;
  await app.register(graphqlPlugin, {
    ide: config.nodeEnv === 'development',
    services,
    limits: { maxCost: config.graphqlMaxCost, introspection: config.graphqlIntrospection },
  });
  if (config.graphqlPersistedQueries !== undefined) servePersistedQueries(app, config.graphqlPersistedQueries);
  for (const area of [...CORE_AREAS, ...(options.areas ?? [])]) await app.register(area, { platform, services });
  serveFileStorage(app, fileStorage);
  return app;
}

/** The policy of each limited route, by the URL it is declared with: the router's match, never the path as sent. */
const ROUTE_POLICIES: Readonly<Record<string, string>> = { '/track': 'track', '/graphql': 'graphql' };

/** Whose checkouts a GraphQL request places: the signed-in customer's, or the guest session's (both as the api verified them). */
function checkoutSessionOf(request: FastifyRequest): string | undefined {
  const { principal, sessionId } = identityOf(request);
  if (principal?.kind === 'customer') return `customer:${principal.customerId}`;
  return sessionId === undefined ? undefined : `session:${sessionId}`;
}

/** Token buckets per client address (or per BFF and the shopper it names) on /track and /graphql, and per public mutation (docs/rate-limiting.md). */
async function limitRates(app: FastifyInstance, platform: AppPlatform): Promise<void> {
  const rateLimiting = await openRateLimiter(platform);
  app.addHook('onClose', () => rateLimiting.close());
  rateLimit(app, {
    limiter: rateLimiting.limiter,
    routePolicies: ROUTE_POLICIES,
    bodyPoliciesFor: graphqlMutationCharges({
      limiter: rateLimiting.limiter,
      schema: () => app.graphql.schema,
      sessionOf: checkoutSessionOf,
    }),
    caller: clientAddressCaller(new ClientAddress(platform.config.trustedProxies)),
    bff: bffRequests(app, platform),
  });
}
