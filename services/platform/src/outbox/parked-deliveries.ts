import type pg from 'pg';

/** Which parked deliveries: all, one listener's, or one event's (its outbox id or its event id). */
export type ParkedFilter = { readonly all: true } | { readonly listener: string } | { readonly event: string };

export interface ParkedDelivery {
  readonly listener: string;
  readonly eventName: string;
  /** The outbox row id (`outbox_id` in the dispatcher's log lines). */
  readonly outboxId: string;
  readonly eventId: string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly ageSeconds: number;
}

export interface ReplayProgress {
  readonly replayed: number;
  readonly left: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An `--event` value is an outbox id (digits) or an event id (UUID); anything else is a usage error. */
export function isEventReference(value: string): boolean {
  return /^\d{1,18}$/.test(value) || UUID.test(value);
}

/** The SQL condition on `d` (outbox_deliveries) and `e` (outbox_events) selecting the filter's parked deliveries, with its parameters. */
function condition(filter: ParkedFilter): { where: string; params: unknown[] } {
  const parked = "d.status = 'parked'";
  if ('listener' in filter) return { where: `${parked} AND d.listener = $1`, params: [filter.listener] };
  if ('event' in filter) {
    const column = UUID.test(filter.event) ? 'e.event_id = $1::uuid' : 'e.id = $1::bigint';
    return { where: `${parked} AND ${column}`, params: [filter.event] };
  }
  return { where: parked, params: [] };
}

export async function listParkedDeliveries(pool: pg.Pool, filter: ParkedFilter): Promise<ParkedDelivery[]> {
  const { where, params } = condition(filter);
  const { rows } = await pool.query<ParkedDelivery>(
    `SELECT d.listener, e.name AS "eventName", e.id::text AS "outboxId", e.event_id::text AS "eventId", d.attempts,
            d.last_error AS "lastError", extract(epoch FROM now() - e.created_at)::float AS "ageSeconds"
       FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
      WHERE ${where}
      ORDER BY e.id, d.listener`,
    params,
  );
  return rows;
}

/**
 * Hands the filter's parked deliveries back to the dispatcher, a batch at a time: each delivery starts
 * over with no attempts, and its event becomes due again with what the dispatcher's finishing set undone
 * (dispatched_at, and published_at, which a dispatch with no broker sets on topic events). Listeners
 * already done with the event are not run again. Returns how many deliveries were replayed.
 */
export async function replayParkedDeliveries(
  pool: pg.Pool,
  filter: ParkedFilter,
  options: { readonly batchSize: number; readonly onProgress?: (progress: ReplayProgress) => void },
): Promise<number> {
  const { where, params } = condition(filter);
  const limit = `$${params.length + 1}`;
  let replayed = 0;
  for (;;) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ event_id: string }>(
        `UPDATE outbox_deliveries SET status = 'failed', attempts = 0
          WHERE (event_id, listener) IN (SELECT d.event_id, d.listener FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
                                          WHERE ${where} ORDER BY d.event_id LIMIT ${limit} FOR UPDATE OF d SKIP LOCKED)
          RETURNING event_id`,
        [...params, options.batchSize],
      );
      await client.query(
        `UPDATE outbox_events SET dispatched_at = NULL, published_at = NULL, attempts = 0, next_attempt_at = now()
          WHERE id = ANY($1::bigint[]) AND dispatched_at IS NOT NULL`,
        [rows.map((row) => row.event_id)],
      );
      const left = await client.query<{ left: number }>(
        `SELECT count(*)::int AS left FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id WHERE ${where}`,
        params,
      );
      await client.query('COMMIT');
      replayed += rows.length;
      if (rows.length > 0) options.onProgress?.({ replayed, left: left.rows[0]?.left ?? 0 });
      if (rows.length < options.batchSize) return replayed;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }
}
