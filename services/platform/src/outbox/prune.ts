import type pg from 'pg';
import { deleteInBatches } from '../db/delete-in-batches.ts';

/** Deletes finished events older than the retention; an event still waiting is never pruned. */
export function pruneOutbox(pool: pg.Pool, retentionHours: number): Promise<number> {
  return deleteInBatches(pool, 'outbox_events', 'created_at < now() - make_interval(hours => $1) AND coalesce(published_at, dispatched_at) IS NOT NULL', [
    retentionHours,
  ]);
}
