import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Platform } from '@shop/platform';
import {
  RepeatClicks,
  TRACKING_FIELD_LENGTHS,
  fitText,
  insertTrackingEvents,
  tokenSettings,
  type TrackingEventRecord,
} from '@shop/domain';
import { ClientAddress } from '../http/client-address.ts';
import { EventBuffer, type EventBufferSettings } from './event-buffer.ts';
import { bigintId, describeSchemaError, eventsOf, fieldName, trackBodySchema, type BeaconEvent, type BodyProblem } from './track-body.ts';
import { trackingMetrics, type RejectReason, type TrackingMetrics } from './tracking-metrics.ts';
import { viewerOf } from './viewer.ts';

export type TrackingPlatform = Pick<Platform, 'config' | 'logger' | 'metrics' | 'database' | 'cache'>;

export interface TrackingOptions {
  readonly buffer?: Partial<EventBufferSettings>;
  /** Replaces the multi-row INSERT (tests use it to hold or fail writes). */
  readonly write?: (rows: readonly TrackingEventRecord[]) => Promise<unknown>;
}

export interface TrackingEndpoint {
  readonly buffer: EventBuffer<TrackingEventRecord>;
}

/** Beacons are small: 50 events with long URLs fit with room to spare. */
const BODY_LIMIT_BYTES = 256 * 1024;
const SESSION_HEADER = 'x-session-id';
const CACHE_WARNING_EVERY_MS = 60_000;

/** SQLSTATE classes 22 (data exception) and 23 (integrity constraint): the rows themselves were refused. */
function isRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

function refuse(reply: FastifyReply, status: 400 | 503, problem: BodyProblem | string): FastifyReply {
  const message = typeof problem === 'string' ? problem : `${problem.field} ${problem.message}`;
  return reply.code(status).send({ error: { code: status === 400 ? 'BAD_REQUEST' : 'UNAVAILABLE', message } });
}

/** How many events a refused body held, for the rejected counter (a body that is no list counts as one). */
const countOf = (body: unknown): number => (Array.isArray(body) && body.length > 0 ? body.length : 1);

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
  const handler = new TrackHandler({
    buffer,
    repeats,
    metrics,
    addresses: new ClientAddress(config.trustedProxies),
    tokens: tokenSettings(config.secretKey),
  });

  app.addHook('onClose', async () => {
    await buffer.close();
  });
  app.register(async (scope) => {
    // navigator.sendBeacon sends text/plain to stay clear of CORS preflights: read it as JSON too.
    scope.removeContentTypeParser('text/plain');
    scope.addContentTypeParser('text/plain', { parseAs: 'string' }, scope.getDefaultJsonParser('error', 'error'));
    scope.addHook('onError', async (request, _reply, error: FastifyError) => {
      const reason: RejectReason = error.statusCode === 413 ? 'body_too_large' : error.statusCode === 415 ? 'unsupported_media_type' : 'invalid_body';
      if (error.statusCode !== undefined && error.statusCode < 500) metrics.rejected.inc({ reason }, countOf(request.body));
    });
    scope.post(
      '/track',
      {
        bodyLimit: BODY_LIMIT_BYTES,
        schema: { body: trackBodySchema },
        attachValidation: true,
        // A single event becomes a list of one, and wrong JSON types are caught before the validator coerces them.
        preValidation: async (request) => {
          const { events, batch, problem } = eventsOf(request.body);
          request.body = events;
          trackState.set(request, { batch, problem });
        },
      },
      (request, reply) => handler.handle(request, reply),
    );
  });
  return { buffer };
}

const trackState = new WeakMap<FastifyRequest, { batch: boolean; problem: BodyProblem | undefined }>();

interface TrackHandlerDeps {
  readonly buffer: EventBuffer<TrackingEventRecord>;
  readonly repeats: RepeatClicks;
  readonly metrics: TrackingMetrics;
  readonly addresses: ClientAddress;
  readonly tokens: ReturnType<typeof tokenSettings>;
}

class TrackHandler {
  readonly #deps: TrackHandlerDeps;

  constructor(deps: TrackHandlerDeps) {
    this.#deps = deps;
  }

  async handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { buffer, metrics } = this.#deps;
    const receivedAt = new Date();
    const reject = (reason: RejectReason, status: 400 | 503, problem: BodyProblem | string) => {
      metrics.rejected.inc({ reason }, countOf(request.body));
      return refuse(reply, status, problem);
    };

    const sessionId = headerValue(request.headers[SESSION_HEADER]);
    if (sessionId === undefined || sessionId.trim() === '') return reject('missing_session_id', 400, 'X-Session-ID header is required');
    if (sessionId.length > TRACKING_FIELD_LENGTHS.sessionId) {
      return reject('session_id_too_long', 400, `X-Session-ID header must be at most ${TRACKING_FIELD_LENGTHS.sessionId} characters`);
    }

    const state = trackState.get(request) ?? { batch: false, problem: undefined };
    if (state.problem !== undefined) return reject('invalid_body', 400, state.problem);
    if (request.validationError !== undefined) {
      return reject('invalid_body', 400, describeSchemaError(request.validationError.validation, state.batch));
    }
    const events = request.body as BeaconEvent[];
    const ids = this.#ids(events, state.batch);
    if ('problem' in ids) return reject('invalid_body', 400, ids.problem);

    const admission = buffer.admit(events.length);
    if (!admission.ok) {
      reply.header('retry-after', String(admission.retryAfterSeconds));
      const message = admission.reason === 'shutting_down' ? 'the api is stopping; send the events again' : 'too many tracking events are waiting to be written; retry later';
      return reject(admission.reason, 503, message);
    }
    try {
      const records = await this.#records(request, events, ids.values, sessionId, receivedAt);
      admission.reservation.commit(records);
    } catch (error) {
      admission.reservation.release();
      throw error;
    }
    for (const event of events) metrics.received.inc({ event_type: event.event_type });
    return reply.code(202).send({ accepted: events.length });
  }

  #ids(events: readonly BeaconEvent[], batch: boolean): { values: { entityId: bigint; channelId: bigint | null }[] } | { problem: BodyProblem } {
    const values: { entityId: bigint; channelId: bigint | null }[] = [];
    for (const [index, event] of events.entries()) {
      const entityId = bigintId(event.entity_id);
      const channelId = event.channel_id === undefined || event.channel_id === null ? null : bigintId(event.channel_id);
      const tooLarge = entityId === undefined ? 'entity_id' : channelId === undefined ? 'channel_id' : undefined;
      if (tooLarge !== undefined) return { problem: { field: fieldName(batch, index, tooLarge), message: 'must be at most 9223372036854775807' } };
      values.push({ entityId: entityId as bigint, channelId: channelId as bigint | null });
    }
    return { values };
  }

  async #records(
    request: FastifyRequest,
    events: readonly BeaconEvent[],
    ids: readonly { entityId: bigint; channelId: bigint | null }[],
    sessionId: string,
    receivedAt: Date,
  ): Promise<TrackingEventRecord[]> {
    const { metrics, addresses, tokens } = this.#deps;
    const viewer = await viewerOf(headerValue(request.headers.authorization), tokens, (reason) => metrics.ignoredTokens.inc({ reason }));
    const ipAddress = addresses.of(request.headers['x-forwarded-for'], request.socket.remoteAddress);
    const userAgent = fitText(headerValue(request.headers['user-agent']) ?? '', TRACKING_FIELD_LENGTHS.userAgent);
    const records: TrackingEventRecord[] = [];
    // One after another: a batch that clicks one entity twice records the second click as a repeat.
    for (const [index, event] of events.entries()) {
      const { entityId, channelId } = ids[index] as { entityId: bigint; channelId: bigint | null };
      const click = { entityType: event.entity_type, entityId, sessionId, userId: viewer.userId };
      records.push({
        eventType: event.event_type,
        entityType: event.entity_type,
        entityId,
        userId: viewer.userId,
        customerGroupId: viewer.customerGroupId,
        isAuthenticated: viewer.isAuthenticated,
        sessionId,
        ipAddress,
        userAgent,
        pageUrl: fitText(event.page_url, TRACKING_FIELD_LENGTHS.pageUrl),
        referrerUrl: fitText(event.referrer_url ?? '', TRACKING_FIELD_LENGTHS.referrerUrl),
        isRepeat: event.event_type === 'click' ? await this.#isRepeat(click, request) : false,
        channelId,
        createdAt: receivedAt,
      });
    }
    return records;
  }

  async #isRepeat(click: Parameters<RepeatClicks['isRepeat']>[0], request: FastifyRequest): Promise<boolean> {
    try {
      return await this.#deps.repeats.isRepeat(click);
    } catch (error) {
      // The database could not confirm a first click: record it as one rather than lose the event.
      this.#deps.metrics.repeatCheckFallbacks.inc({ reason: 'database_error' });
      request.log.warn({ err: error }, 'could not check for an earlier click; recorded as a first click');
      return false;
    }
  }
}
