import { TRACKING_FIELD_LENGTHS, fitText, type RepeatClicks, type tokenSettings, type TrackingEventRecord } from '@shop/domain';
import type { ClientAddress } from '../http/client-address.ts';
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

/** How a beacon request ends: every event queued, or refused (nothing of it stored) and why. */
export type TrackOutcome =
  | { readonly ok: true; readonly accepted: number }
  | { readonly ok: false; readonly status: 400; readonly reason: RejectReason; readonly problem: SessionProblem | { readonly body: BodyProblem; readonly batch: boolean } }
  | { readonly ok: false; readonly status: 503; readonly reason: 'buffer_full' | 'shutting_down'; readonly retryAfterSeconds: number; readonly message: string };

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

const NOT_A_CLICK = { repeat: false, checkEarlierClick: false } as const;

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

  /** Counts events refused before they reached the tracker (an unparseable or too large body). */
  rejected(reason: RejectReason, count: number): void {
    this.#deps.metrics.rejected.inc({ reason }, count);
  }

  async track(source: BeaconSource, body: unknown): Promise<TrackOutcome> {
    const { buffer, metrics } = this.#deps;
    const receivedAt = new Date();
    const reject = <T extends TrackOutcome & { ok: false }>(outcome: T): T => {
      metrics.rejected.inc({ reason: outcome.reason }, countOf(body));
      return outcome;
    };

    const sessionId = headerValue(source.sessionId);
    if (sessionId === undefined || sessionId.trim() === '') {
      return reject({ ok: false, status: 400, reason: 'missing_session_id', problem: { header: 'X-Session-ID', message: 'X-Session-ID header is required' } });
    }
    if (sessionId.length > TRACKING_FIELD_LENGTHS.sessionId) {
      const message = `X-Session-ID header must be at most ${TRACKING_FIELD_LENGTHS.sessionId} characters`;
      return reject({ ok: false, status: 400, reason: 'session_id_too_long', problem: { header: 'X-Session-ID', message } });
    }

    const parsed = parseBeacons(body);
    if ('problem' in parsed) return reject({ ok: false, status: 400, reason: 'invalid_body', problem: { body: parsed.problem, batch: parsed.batch } });
    const { events } = parsed;

    const admission = buffer.admit(events.length);
    if (!admission.ok) {
      const message = admission.reason === 'shutting_down' ? 'the api is stopping; send the events again' : 'too many tracking events are waiting to be written; retry later';
      return reject({ ok: false, status: 503, reason: admission.reason, retryAfterSeconds: admission.retryAfterSeconds, message });
    }
    try {
      admission.reservation.commit(await this.#records(source, events, sessionId, receivedAt));
    } catch (error) {
      admission.reservation.release();
      throw error;
    }
    for (const event of events) metrics.received.inc({ event_type: event.event_type });
    return { ok: true, accepted: events.length };
  }

  async #records(source: BeaconSource, events: readonly BeaconEvent[], sessionId: string, receivedAt: Date): Promise<TrackingEventRecord[]> {
    const { metrics, addresses, tokens } = this.#deps;
    const viewer = await viewerOf(headerValue(source.authorization), tokens, (reason) => metrics.ignoredTokens.inc({ reason }));
    const ipAddress = addresses.of(source.forwardedFor, source.remoteAddress);
    const userAgent = fitText(headerValue(source.userAgent) ?? '', TRACKING_FIELD_LENGTHS.userAgent);
    const records: TrackingEventRecord[] = [];
    // One after another: a batch that clicks one entity twice records the second click as a repeat.
    for (const event of events) {
      const click = { entityType: event.entity_type, entityId: event.entity_id, sessionId, userId: viewer.userId };
      // A click the cache takes as first is checked against tracking_events by the batch INSERT, not here.
      const repeat = event.event_type === 'click' ? await this.#deps.repeats.fromCache(click) : NOT_A_CLICK;
      records.push({
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
      });
    }
    return records;
  }
}
