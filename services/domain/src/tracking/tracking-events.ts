import { LIMITS } from '../kernel/index.ts';

/** What a tracking beacon can report and about what (docs/tracking.md). */
export const TRACKING_EVENT_TYPES = ['impression', 'click'] as const;
export type TrackingEventType = (typeof TRACKING_EVENT_TYPES)[number];

export const TRACKED_ENTITY_TYPES = ['banner', 'slide', 'hero'] as const;
export type TrackedEntityType = (typeof TRACKED_ENTITY_TYPES)[number];

/** Column lengths of tracking_events, in characters. */
export const TRACKING_FIELD_LENGTHS = {
  sessionId: LIMITS.trackingSessionId.max,
  ipAddress: LIMITS.trackingIpAddress.max,
  userAgent: LIMITS.trackingUserAgent.max,
  pageUrl: LIMITS.trackingPageUrl.max,
  referrerUrl: LIMITS.trackingReferrerUrl.max,
} as const;

/** The largest value a PostgreSQL bigint holds: ids above it are refused, never wrapped. */
export const MAX_BIGINT = 9_223_372_036_854_775_807n;

/** One row of tracking_events, ready to write: every text already fits its column (see {@link fitText}). */
export interface TrackingEventRecord {
  readonly eventType: TrackingEventType;
  readonly entityType: TrackedEntityType;
  readonly entityId: bigint;
  readonly userId: bigint | null;
  readonly customerGroupId: bigint | null;
  readonly isAuthenticated: boolean;
  readonly sessionId: string;
  readonly ipAddress: string;
  readonly userAgent: string;
  readonly pageUrl: string;
  readonly referrerUrl: string;
  readonly isRepeat: boolean;
  readonly channelId: bigint | null;
  /** When the api received the beacon. */
  readonly createdAt: Date;
  /**
   * A click the cache took as a first click (or could not judge): the INSERT then sets is_repeat from
   * tracking_events, true when an earlier click of the same session or user on the entity is there.
   * Absent or false: isRepeat is stored as given.
   */
  readonly checkEarlierClick?: boolean;
}

/** The part of a `pg` pool or client the tracking writes need. */
export interface SqlClient {
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null; rows: unknown[] }>;
}

/**
 * The text cut to at most `maxChars` characters (code points, as PostgreSQL counts them, so a cut
 * never splits a surrogate pair), without NUL characters, which PostgreSQL text cannot store and
 * which would make the whole batch fail.
 */
export function fitText(value: string, maxChars: number): string {
  const clean = value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
  if (clean.length <= maxChars) return clean;
  let cut = '';
  let count = 0;
  for (const char of clean) {
    if (count === maxChars) break;
    cut += char;
    count += 1;
  }
  return cut;
}

// One parameter per column, whatever the batch size: the statement stays the same (and prepared
// once per connection) and never nears PostgreSQL's 65,535-parameter limit. The repeat check of the
// clicks the cache took as first clicks is done here, for the whole batch, by the
// (session_id, entity_type, entity_id) and (user_id, created_at) indexes: the statement sees the rows
// committed before it, not the batch's own.
const INSERT_SQL = `
  INSERT INTO tracking_events (event_type, entity_type, entity_id, user_id, customer_group_id, is_authenticated, session_id,
                               ip_address, user_agent, page_url, referrer_url, is_repeat, channel_id, created_at)
  SELECT e.event_type, e.entity_type, e.entity_id, e.user_id, e.customer_group_id, e.is_authenticated, e.session_id,
         e.ip_address, e.user_agent, e.page_url, e.referrer_url,
         CASE WHEN e.check_earlier THEN EXISTS (
                SELECT 1 FROM tracking_events earlier
                 WHERE earlier.event_type = 'click' AND earlier.entity_type = e.entity_type AND earlier.entity_id = e.entity_id
                   AND (earlier.session_id = e.session_id OR earlier.user_id = e.user_id))
              ELSE e.is_repeat END,
         e.channel_id, e.created_at
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::boolean[], $7::text[],
                $8::text[], $9::text[], $10::text[], $11::text[], $12::boolean[], $13::bigint[], $14::timestamptz[], $15::boolean[])
      AS e (event_type, entity_type, entity_id, user_id, customer_group_id, is_authenticated, session_id,
            ip_address, user_agent, page_url, referrer_url, is_repeat, channel_id, created_at, check_earlier)`;

const idOrNull = (id: bigint | null): string | null => (id === null ? null : id.toString());

/** Writes the events in one multi-row INSERT (deciding is_repeat of the clicks marked checkEarlierClick); returns how many rows were written. */
export async function insertTrackingEvents(db: SqlClient, events: readonly TrackingEventRecord[]): Promise<number> {
  if (events.length === 0) return 0;
  const column = <T>(pick: (event: TrackingEventRecord) => T): T[] => events.map(pick);
  const result = await db.query(INSERT_SQL, [
    column((event) => event.eventType),
    column((event) => event.entityType),
    column((event) => event.entityId.toString()),
    column((event) => idOrNull(event.userId)),
    column((event) => idOrNull(event.customerGroupId)),
    column((event) => event.isAuthenticated),
    column((event) => event.sessionId),
    column((event) => event.ipAddress),
    column((event) => event.userAgent),
    column((event) => event.pageUrl),
    column((event) => event.referrerUrl),
    column((event) => event.isRepeat),
    column((event) => idOrNull(event.channelId)),
    column((event) => event.createdAt.toISOString()),
    column((event) => event.eventType === 'click' && event.checkEarlierClick === true),
  ]);
  return result.rowCount ?? events.length;
}
