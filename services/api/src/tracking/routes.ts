import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Platform } from '@shop/platform';
import { RepeatClicks, insertTrackingEvents, type TrackingEventRecord } from '@shop/domain/tracking';
import { tokenSettingsOf } from '../auth/token-settings-of.ts';
import { ClientAddress } from '../http/client-address.ts';
import { ChargeAndClaim, type Claims } from './charge-and-claim.ts';
import type { RouteRateLimits } from '../http/rate-limit/plugin.ts';
import { EventBuffer, type EventBufferSettings } from './event-buffer.ts';
import { BODY_LIMIT_BYTES, restFieldName } from './track-body.ts';
import { countOf, Tracker, type Charge, type Charged, type ChargedTrackOutcome } from './tracker.ts';
import { trackingMetrics, type RejectReason } from './tracking-metrics.ts';

export type TrackingPlatform = Pick<Platform, 'config' | 'logger' | 'metrics' | 'database' | 'cache'>;

export interface TrackingOptions {
  readonly buffer?: Partial<EventBufferSettings>;
  /** Replaces the multi-row INSERT (tests use it to hold or fail writes). */
  readonly write?: (rows: readonly TrackingEventRecord[]) => Promise<unknown>;
}

export interface TrackingEndpoint {
  readonly buffer: EventBuffer<TrackingEventRecord>;
  readonly tracker: Tracker;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The beacon recorder behind POST /track and the track mutation (the tracking area). */
    readonly tracker?: Tracker;
  }
}

const CACHE_WARNING_EVERY_MS = 60_000;

/** SQLSTATE classes 22 (data exception) and 23 (integrity constraint): the rows themselves were refused. */
function isRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}

/** A tracker's answer in the REST shape: 202 `{accepted}`, or 400/503 `{error: {code, message}}` (a 429 is sent already). */
function answer(reply: FastifyReply, outcome: ChargedTrackOutcome): FastifyReply {
  if (outcome.ok) return reply.code(202).send({ accepted: outcome.accepted });
  if (outcome.status === 429) return reply;
  if (outcome.status === 503) {
    reply.header('retry-after', String(outcome.retryAfterSeconds));
    return reply.code(503).send({ error: { code: 'UNAVAILABLE', message: outcome.message } });
  }
  const { problem } = outcome;
  const message = 'header' in problem ? problem.message : `${restFieldName(problem.body, problem.batch)} ${problem.body.message}`;
  return reply.code(400).send({ error: { code: 'BAD_REQUEST', message } });
}

/**
 * POST /track: records impressions and clicks (one event or a list of up to 50) and answers 202 as
 * soon as they are queued; the buffer writes them in batches. The session is the X-Session-ID
 * header; a Bearer token, when valid and a customer's, adds the user; any token problem is ignored
 * (the event is anonymous) and counted. Registers the buffer's final flush on the app's close.
 */
export function trackingRoutes(app: FastifyInstance, platform: TrackingPlatform, options: TrackingOptions = {}): TrackingEndpoint {
  const { config, logger, database } = platform;
  const metrics = trackingMetrics(platform.metrics);
  const buffer = new EventBuffer<TrackingEventRecord>({
    write: options.write ?? ((rows) => insertTrackingEvents(database.pool, rows)),
    isRefusal,
    settings: { closeTimeoutMs: Math.max(1_000, Math.floor(config.shutdownTimeoutMs / 2)), ...options.buffer },
    metrics,
    logger,
  });
  let lastCacheWarning = 0;
  const repeats = new RepeatClicks({
    cache: platform.cache,
    db: database.pool,
    onCacheError: (error) => {
      metrics.repeatCheckFallbacks.inc({ reason: 'cache_error' });
      if (Date.now() - lastCacheWarning < CACHE_WARNING_EVERY_MS) return;
      lastCacheWarning = Date.now();
      logger.warn({ err: error }, 'the cache failed: repeat clicks are decided by the database alone');
    },
  });
  const tracker = new Tracker({
    buffer,
    repeats,
    metrics,
    addresses: new ClientAddress(config.trustedProxies),
    tokens: tokenSettingsOf(config),
  });

  app.decorate('tracker', tracker);
  app.addHook('onClose', async () => {
    await buffer.close();
  });

  // POST /track spends its rate limit in the handler, with its clicks' repeat keys in the same cache round
  // trip, when the app limits rates (rateLimit() registered: app.rateLimits); otherwise it is not limited.
  let charging: { readonly limits: RouteRateLimits; readonly store: ChargeAndClaim } | undefined;
  const chargeFor = (request: FastifyRequest, reply: FastifyReply): Charge | undefined => {
    const limits = app.rateLimits;
    if (limits === undefined) return undefined;
    if (charging?.limits !== limits)
      charging = {
        limits,
        store: new ChargeAndClaim({ limiter: limits.limiter, cache: platform.cache, metrics: platform.metrics, logger }),
      };
    const { store } = charging;
    return async (claims: Claims): Promise<Charged> => {
      const charged = await store.take(limits.policyOf(request), limits.callerOf(request), 1, claims);
      if (limits.apply(request, reply, charged.decision)) return { allowed: false, claimed: [] };
      return { allowed: true, claimed: charged.claimed, ...(charged.cacheError === undefined ? {} : { cacheError: charged.cacheError }) };
    };
  };

  app.register(async (scope) => {
    // Unknown properties are ignored, `__proto__` and `constructor.prototype` among them: removed while parsing
    // (which keeps them from polluting a prototype) instead of refusing the whole body as Fastify does by default.
    // navigator.sendBeacon sends text/plain to stay clear of CORS preflights: read it as JSON too.
    const json = scope.getDefaultJsonParser('remove', 'remove');
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    scope.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, json);
    // A body refused before the handler (unparseable, too large, wrong type) spends the rate limit too, and a
    // caller over it gets 429 instead; then the app's error handler answers.
    scope.setErrorHandler(async (error: FastifyError, request, reply) => {
      if (error.statusCode !== undefined && error.statusCode < 500) {
        const charge = chargeFor(request, reply);
        if (charge !== undefined && !(await charge({ keys: [], ttlSeconds: 0 })).allowed) return reply;
        const reason: RejectReason =
          error.statusCode === 413 ? 'body_too_large' : error.statusCode === 415 ? 'unsupported_media_type' : 'invalid_body';
        tracker.rejected(reason, countOf(request.body));
      }
      throw error;
    });
    // No schema: the tracker validates (parseBeacons), the same way for the GraphQL track mutation.
    scope.post('/track', { bodyLimit: BODY_LIMIT_BYTES, config: { rateLimit: 'in handler' } }, async (request, reply) => {
      const { headers } = request;
      const source = {
        sessionId: headers['x-session-id'],
        authorization: headers.authorization,
        forwardedFor: headers['x-forwarded-for'],
        userAgent: headers['user-agent'],
        remoteAddress: request.socket.remoteAddress,
      };
      return answer(reply, await tracker.track(source, request.body, chargeFor(request, reply)));
    });
  });
  return { buffer, tracker };
}
