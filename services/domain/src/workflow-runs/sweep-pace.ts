import { keepPace } from '@shop/platform';
import type { SweepBatch } from '../workflows/index.ts';

/** How fast a sweep goes: rows in transactions of `chunkRows`, at most `rowsPerSecond` rows a second. */
export interface SweepPace {
  readonly rowsPerSecond: number;
  readonly chunkRows: number;
}

/** Rows one transaction of a sweep handles: short enough that its locks and its burst of work pass quickly. */
export const SWEEP_CHUNK_ROWS = 100;

export function sweepPace(rowsPerSecond: number): SweepPace {
  return { rowsPerSecond, chunkRows: SWEEP_CHUNK_ROWS };
}

/**
 * A pass over up to `limit` rows as chunks of `pace.chunkRows`, each its own transaction. A chunk
 * that found more takes at least its share of time (chunkRows / rowsPerSecond) before the next one,
 * or before the pass returns, so passes back to back keep to the rate too. A backlog then leaves the
 * cores to the storefront instead of taking them in one burst.
 */
export async function pacedPass(pace: SweepPace, limit: number, chunk: (limit: number) => Promise<SweepBatch>): Promise<SweepBatch> {
  let processed = 0;
  for (let left = limit; ;) {
    const started = performance.now();
    const size = Math.min(pace.chunkRows, left);
    const batch = await chunk(size);
    processed += batch.processed;
    if (!batch.more) return { processed, more: false };
    await keepPace(pace.rowsPerSecond, pace.chunkRows, started);
    left -= size;
    if (left <= 0) return { processed, more: true };
  }
}
