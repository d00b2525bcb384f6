import { type tokenSettings } from '@shop/domain/auth';
import { TRACKING_FIELD_LENGTHS, fitText, type RepeatClicks, type TrackingEventRecord } from '@shop/domain/tracking';
import type { ClientAddress } from '../http/client-address.ts';
import type { Claims } from './charge-and-claim.ts';
import type { EventBuffer } from './event-buffer.ts';
import { parseBeacons, type BeaconEvent, type BodyProblem } from './track-body.ts';
import type { RejectReason, TrackingMetrics } from './tracking-metrics.ts';
import { viewerOf } from './viewer.ts';

/** What a beacon request says besides its events: the headers and the peer, as HTTP received them. */
export interface BeaconSource {
  readonly sessionId: string | string[] | undefined;
  readonly authorization: string | string[] | undefined;
  readonly forwardedFor: string | string[] | undefined;
  readonly userAgent: string | string[] | undefined;
  readonly remoteAddress: string | undefined;
}

/**
 * What a transport that charges the request's rate limit itself passes to {@link Tracker.track} (POST /track):
 * spends the request's token and, only when that is allowed, claims the keys (set-if-absent, the repeat
 * keys of its clicks), in one cache round trip (ChargeAndClaim). When refused it has answered the request.
 */
export type Charge = (claims: Claims) => Promise<Charged>;

export interface Charged {
  /** False: rate limited, nothing claimed, and the transport has answered (429). */
  readonly allowed: boolean;
  /** Per claimed key, true when this request stored it. */
  readonly claimed: readonly boolean[];
  /** The cache failed: the claims are unknown (the rate limit failed open). */
  readonly cacheError?: unknown;
}

/** How a beacon request ends: every event queued, or refused (nothing of it stored) and why. */
export type TrackOutcome =
  | { readonly ok: true; readonly accepted: number }
  | {
      readonly ok: false;
      readonly status: 400;
      readonly reason: RejectReason;
      readonly problem: SessionProblem | { readonly body: BodyProblem; readonly batch: boolean };
    }
  | {
      readonly ok: false;
      readonly status: 503;
      readonly reason: 'buffer_full' | 'shutting_down';
      readonly retryAfterSeconds: number;
      readonly message: string;
    };

/** How a request that spent its rate limit through a {@link Charge} ends: also rate limited (answered 429 by the charge). */
export type ChargedTrackOutcome = TrackOutcome | typeof LIMITED;

/** A problem with X-Session-ID (the header is named the same way by every transport). */
export interface SessionProblem {
  readonly header: 'X-Session-ID';
  readonly message: string;
}

export interface TrackerDeps {
  readonly buffer: EventBuffer<TrackingEventRecord>;
  readonly repeats: RepeatClicks;
  readonly metrics: TrackingMetrics;
  readonly addresses: ClientAddress;
  readonly tokens: ReturnType<typeof tokenSettings>;
}

type RepeatDecision = Awaited<ReturnType<RepeatClicks['fromCache']>>;

const NOT_A_CLICK: RepeatDecision = { repeat: false, checkEarlierClick: false };
const NO_CLAIMS: Claims = { keys: [], ttlSeconds: 0 };
const LIMITED: { readonly ok: false; readonly status: 429 } = { ok: false, status: 429 };

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** How many events a refused body held, for the rejected counter (a body that is no list counts as one). */
export const countOf = (body: unknown): number => (Array.isArray(body) && body.length > 0 ? body.length : 1);

/**
 * Records beacons, whatever carried them (POST /track, the GraphQL track mutation): the session
 * header, the body's validation, the token, the client address, is_repeat, the bounded buffer and the
 * metrics are decided here once, so both transports follow the same rules (docs/tracking.md).
 */
export class Tracker {
  readonly #deps: TrackerDeps;

  constructor(deps: TrackerDeps) {
    this.#deps = deps;
  }

  /** Writes every queued event now; resolves when the queue is empty or a write failed (tests wait on it). */
  flush(): Promise<void> {
    return this.#deps.buffer.flush();
  }

  /** Counts events refused before they reached the tracker (an unparseable or too large body). */
  rejected(reason: RejectReason, count: number): void {
    this.#deps.metrics.rejected.inc({ reason }, count);
  }

  /**
   * Records a request's beacons. With `charge` (POST /track) the request's rate limit is spent here, after
   * the body is read: on the way to any refusal (400, 503), or together with the clicks' repeat keys; a
   * rate-limited request is refused (429) before anything else and stores nothing, not even a repeat key.
   */
  track(source: BeaconSource, body: unknown): Promise<TrackOutcome>;
  track(source: BeaconSource, body: unknown, charge: Charge | undefined): Promise<ChargedTrackOutcome>;
  async track(source: BeaconSource, body: unknown, charge?: Charge): Promise<ChargedTrackOutcome> {
    const { buffer, metrics } = this.#deps;
    const receivedAt = new Date();
    const reject = async <T extends TrackOutcome & { ok: false; status: 400 | 503 }>(outcome: T): Promise<T | typeof LIMITED> => {
      if (charge !== undefined && !(await charge(NO_CLAIMS)).allowed) return LIMITED;
      metrics.rejected.inc({ reason: outcome.reason }, countOf(body));
      return outcome;
    };

    const sessionId = headerValue(source.sessionId);
    if (sessionId === undefined || sessionId.trim() === '') {
      return reject({
        ok: false,
        status: 400,
        reason: 'missing_session_id',
        problem: { header: 'X-Session-ID', message: 'X-Session-ID header is required' },
      });
    }
    if (sessionId.length > TRACKING_FIELD_LENGTHS.sessionId) {
      const message = `X-Session-ID header must be at most ${TRACKING_FIELD_LENGTHS.sessionId} characters`;
      return reject({ ok: false, status: 400, reason: 'session_id_too_long', problem: { header: 'X-Session-ID', message } });
    }

    const parsed = parseBeacons(body);
    if ('problem' in parsed)
      return reject({ ok: false, status: 400, reason: 'invalid_body', problem: { body: parsed.problem, batch: parsed.batch } });
    const { events } = parsed;

    const admission = buffer.admit(events.length);
    if (!admission.ok) {
      const message =
        admission.reason === 'shutting_down'
          ? 'the api is stopping; send the events again'
          : 'too many tracking events are waiting to be written; retry later';
      return reject({ ok: false, status: 503, reason: admission.reason, retryAfterSeconds: admission.retryAfterSeconds, message });
    }
    let clicks = 0;
    try {
      const records = await this.#records(source, events, sessionId, receivedAt, charge);
      if (records === undefined) {
        admission.reservation.release();
        return LIMITED;
      }
      admission.reservation.commit(records);
      for (const record of records) if (record.eventType === 'click') clicks += 1;
    } catch (error) {
      admission.reservation.release();
      throw error;
    }
    if (clicks > 0) metrics.received.inc({ event_type: 'click' }, clicks);
    if (clicks < events.length) metrics.received.inc({ event_type: 'impression' }, events.length - clicks);
    return { ok: true, accepted: events.length };
  }

  /** The rows of a request's events; undefined when `charge` refused the request. */
  async #records(
    source: BeaconSource,
    events: readonly BeaconEvent[],
    sessionId: string,
    receivedAt: Date,
    charge: Charge | undefined,
  ): Promise<TrackingEventRecord[] | undefined> {
    const { metrics, addresses, tokens, repeats } = this.#deps;
    const viewer = await viewerOf(headerValue(source.authorization), tokens, (reason) => metrics.ignoredTokens.inc({ reason }));
    const clickOf = (event: BeaconEvent) => ({
      entityType: event.entity_type,
      entityId: event.entity_id,
      sessionId,
      userId: viewer.userId,
    });
    const decisions: RepeatDecision[] = [];
    if (charge === undefined) {
      // One after another: a batch that clicks one entity twice records the second click as a repeat.
      // A click the cache takes as first is checked against tracking_events by the batch INSERT, not here.
      for (const event of events) decisions.push(event.event_type === 'click' ? await repeats.fromCache(clickOf(event)) : NOT_A_CLICK);
    } else {
      // Every click's keys in one charge; the cache sets them in order, so a batch that clicks one entity
      // twice records the second click as a repeat.
      const keys: string[] = [];
      const ends: number[] = [];
      for (const event of events) {
        if (event.event_type === 'click') keys.push(...repeats.keysOf(clickOf(event)));
        ends.push(keys.length);
      }
      const charged = await charge(keys.length === 0 ? NO_CLAIMS : { keys, ttlSeconds: repeats.rememberSeconds });
      if (!charged.allowed) return undefined;
      events.forEach((event, index) => {
        const start = index === 0 ? 0 : (ends[index - 1] as number);
        if (event.event_type !== 'click') decisions.push(NOT_A_CLICK);
        else if (charged.cacheError !== undefined) decisions.push(repeats.cacheFailed(charged.cacheError));
        else decisions.push(repeats.decide(charged.claimed.slice(start, ends[index])));
      });
    }
    const ipAddress = addresses.of(source.forwardedFor, source.remoteAddress);
    const userAgent = fitText(headerValue(source.userAgent) ?? '', TRACKING_FIELD_LENGTHS.userAgent);
    return events.map((event, index) => {
      const repeat = decisions[index] as RepeatDecision;
      return {
        eventType: event.event_type,
        entityType: event.entity_type,
        entityId: event.entity_id,
        userId: viewer.userId,
        customerGroupId: viewer.customerGroupId,
        isAuthenticated: viewer.isAuthenticated,
        sessionId,
        ipAddress,
        userAgent,
        pageUrl: fitText(event.page_url, TRACKING_FIELD_LENGTHS.pageUrl),
        referrerUrl: fitText(event.referrer_url, TRACKING_FIELD_LENGTHS.referrerUrl),
        isRepeat: repeat.repeat,
        checkEarlierClick: repeat.checkEarlierClick,
        channelId: event.channel_id,
        createdAt: receivedAt,
      };
    });
  }
}
