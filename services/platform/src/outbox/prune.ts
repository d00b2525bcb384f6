import type pg from 'pg';

const PRUNE_BATCH = 10_000;

/**
 * Deletes finished events older than the retention, in batches so a large backlog never holds one
 * long lock. Returns how many rows went; an event still waiting is never pruned.
 */
export async function pruneOutbox(pool: pg.Pool, retentionHours: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM outbox_events WHERE id IN (
         SELECT id FROM outbox_events
          WHERE created_at < now() - make_interval(hours => $1)
            AND coalesce(published_at, dispatched_at) IS NOT NULL
          LIMIT $2)`,
      [retentionHours, PRUNE_BATCH],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < PRUNE_BATCH) return deleted;
  }
}
