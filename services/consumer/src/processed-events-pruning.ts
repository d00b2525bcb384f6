import { deleteInBatches, PollingLoop, type Logger } from '@shop/platform';
import type pg from 'pg';

const PRUNE_EVERY_MS = 10 * 60_000;

/** Forgets handled event ids older than the retention; a redelivery older than that would run again. */
export function pruneProcessedEvents(pool: pg.Pool, retentionHours: number): Promise<number> {
  return deleteInBatches(pool, 'processed_events', 'processed_at < now() - make_interval(hours => $1)', [retentionHours]);
}

/** Prunes processed_events now and every ten minutes until stopped. */
export function startProcessedEventsPruning(pool: pg.Pool, retentionHours: number, logger: Logger): PollingLoop {
  const loop = new PollingLoop({
    name: 'processed events pruning',
    idleMs: PRUNE_EVERY_MS,
    maxBackoffMs: PRUNE_EVERY_MS,
    logger,
    pass: async () => {
      const pruned = await pruneProcessedEvents(pool, retentionHours);
      if (pruned > 0) logger.info({ pruned }, `forgot ${pruned} processed event ids older than ${retentionHours} h`);
      return false;
    },
  });
  loop.start();
  return loop;
}
