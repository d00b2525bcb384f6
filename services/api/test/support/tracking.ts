import { randomInt, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { readUntil } from '../../../../test/support/wait.ts';

/** A unique session id: the Redis cache is shared by every test file of the run. */
export const newSession = (label = 's'): string => `${label}-${randomUUID()}`;

/** A random entity id, for the same reason. */
export const newEntityId = (): number => randomInt(1, 2 ** 47);

export interface StoredEvent {
  event_type: string;
  entity_type: string;
  entity_id: string;
  user_id: string | null;
  customer_group_id: string | null;
  is_authenticated: boolean;
  session_id: string;
  ip_address: string;
  user_agent: string;
  page_url: string;
  referrer_url: string;
  is_repeat: boolean;
  channel_id: string | null;
  created_at: Date;
}

/** The session's stored events in id order, once there are `count` of them (or what there is after `timeoutMs`). */
export async function storedEvents(pool: pg.Pool, sessionId: string, count = 1, timeoutMs = 3_000): Promise<StoredEvent[]> {
  const read = async () =>
    (
      await pool.query<StoredEvent>(
        `SELECT event_type, entity_type, entity_id::text AS entity_id, user_id::text AS user_id, customer_group_id::text AS customer_group_id,
                is_authenticated, session_id, ip_address, user_agent, page_url, referrer_url, is_repeat, channel_id::text AS channel_id, created_at
           FROM tracking_events WHERE session_id = $1 ORDER BY tracking_events.id`,
        [sessionId],
      )
    ).rows;
  return readUntil(read, (rows) => rows.length >= count, { timeoutMs, intervalMs: 20 });
}

export interface TrackRequest {
  readonly body?: unknown;
  readonly payload?: string;
  readonly session?: string | null;
  readonly headers?: Record<string, string>;
  readonly remoteAddress?: string;
}

/** POST /track through app.inject, with X-Session-ID unless `session` is null. */
export function track(app: FastifyInstance, request: TrackRequest) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...request.headers };
  if (request.session !== null && request.session !== undefined) headers['x-session-id'] = request.session;
  return app.inject({
    method: 'POST',
    url: '/track',
    headers,
    payload: request.payload ?? JSON.stringify(request.body),
    ...(request.remoteAddress === undefined ? {} : { remoteAddress: request.remoteAddress }),
  });
}

/** A value of one metric sample from the Prometheus text, 0 when absent. */
export async function metricValue(app: FastifyInstance, sample: string): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}
