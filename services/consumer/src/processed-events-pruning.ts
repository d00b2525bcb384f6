import { deleteInBatches, pruningLoop, type Logger, type PollingLoop } from '@shop/platform';
import type pg from 'pg';

/** Forgets handled event ids older than the retention; a redelivery older than that would run again. */
export function pruneProcessedEvents(pool: pg.Pool, retentionHours: number): Promise<number> {
  return deleteInBatches(pool, 'processed_events', 'processed_at < now() - make_interval(hours => $1)', [retentionHours]);
}

/** Prunes processed_events now and every ten minutes until stopped. */
export function startProcessedEventsPruning(pool: pg.Pool, retentionHours: number, logger: Logger): PollingLoop {
  const loop = pruningLoop({
    name: 'processed events pruning',
    logger,
    prune: () => pruneProcessedEvents(pool, retentionHours),
    describe: (pruned) => `forgot ${pruned} processed event ids older than ${retentionHours} h`,
  });
  loop.start();
  return loop;
}
