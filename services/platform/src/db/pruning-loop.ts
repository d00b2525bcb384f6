import type { Logger } from '@shop/runtime';
import { PollingLoop } from '../outbox/polling-loop.ts';

const PRUNE_EVERY_MS = 10 * 60_000;

export interface PruningOptions {
  readonly name: string;
  readonly logger: Logger;
  /** Deletes what is due; returns how many rows went. */
  readonly prune: () => Promise<number>;
  /** The log line for a pass that deleted rows. */
  readonly describe: (pruned: number) => string;
}

/** A loop that prunes once when started and every ten minutes after, logging the passes that deleted something. */
export function pruningLoop(options: PruningOptions): PollingLoop {
  const { name, logger, prune, describe } = options;
  return new PollingLoop({
    name,
    idleMs: PRUNE_EVERY_MS,
    maxBackoffMs: PRUNE_EVERY_MS,
    logger,
    pass: async () => {
      const pruned = await prune();
      if (pruned > 0) logger.info({ pruned }, describe(pruned));
      return false;
    },
  });
}
