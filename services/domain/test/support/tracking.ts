import { randomUUID } from 'node:crypto';
import { insertTrackingEvents, type SqlClient, type TrackingEventRecord } from '../../src/tracking/tracking-events.ts';

/** A unique session id: the cache is shared by every test file of the run. */
export const sessionId = (label = 's'): string => `${label}-${randomUUID()}`;

/** A tracking_events row with sensible defaults. */
export function trackingEvent(overrides: Partial<TrackingEventRecord> = {}): TrackingEventRecord {
  return {
    eventType: 'click',
    entityType: 'banner',
    entityId: 1n,
    userId: null,
    customerGroupId: null,
    isAuthenticated: false,
    sessionId: 'session',
    ipAddress: '203.0.113.7',
    userAgent: 'test-agent',
    pageUrl: 'https://shop.example/',
    referrerUrl: '',
    isRepeat: false,
    channelId: null,
    createdAt: new Date(),
    ...overrides,
  };
}

/** Writes the events and returns their ids, in order. */
export async function recordEvents(db: SqlClient, events: TrackingEventRecord[]): Promise<bigint[]> {
  const { rows: before } = await db.query('SELECT coalesce(max(id), 0)::text AS id FROM tracking_events');
  await insertTrackingEvents(db, events);
  const { rows } = await db.query('SELECT id::text AS id FROM tracking_events WHERE tracking_events.id > $1 ORDER BY tracking_events.id', [
    (before[0] as { id: string }).id,
  ]);
  return (rows as { id: string }[]).map((row) => BigInt(row.id));
}
