import type pg from 'pg';
import { deleteInBatches } from '../db/delete-in-batches.ts';

/**
 * Deletes finished events older than the retention. An event still waiting is never pruned, nor one
 * with a parked delivery: that one waits for `npm run outbox:replay` (replay-cli.ts).
 */
export function pruneOutbox(pool: pg.Pool, retentionHours: number): Promise<number> {
  return deleteInBatches(
    pool,
    'outbox_events',
    `created_at < now() - make_interval(hours => $1) AND coalesce(published_at, dispatched_at) IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM outbox_deliveries WHERE event_id = outbox_events.id AND status = 'parked')`,
    [retentionHours],
  );
}
