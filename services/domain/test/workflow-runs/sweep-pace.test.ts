import { describe, expect, it } from 'vitest';
import { pacedPass } from '../../src/workflow-runs/sweep-pace.ts';

/** A sweep over `rows` due rows: each chunk takes what it may of them, as a transaction would. */
function backlog(rows: number) {
  let left = rows;
  const chunks: number[] = [];
  return {
    chunks,
    chunk: async (limit: number) => {
      const taken = Math.min(limit, left);
      left -= taken;
      chunks.push(taken);
      return { processed: taken, more: taken === limit && left > 0 };
    },
  };
}

describe('a paced sweep pass', () => {
  it('splits its batch into chunks and stops at the batch limit, saying more is due', async () => {
    const due = backlog(1_000);
    expect(await pacedPass({ rowsPerSecond: 1_000_000, chunkRows: 100 }, 250, due.chunk)).toEqual({ processed: 250, more: true });
    expect(due.chunks).toEqual([100, 100, 50]);
  });

  it('stops at the first chunk that finds nothing more', async () => {
    const due = backlog(130);
    expect(await pacedPass({ rowsPerSecond: 1_000_000, chunkRows: 100 }, 500, due.chunk)).toEqual({ processed: 130, more: false });
    expect(due.chunks).toEqual([100, 30]);
  });

  it('gives each chunk that found more its share of time, the last one too, so passes back to back keep the rate', async () => {
    const due = backlog(1_000);
    const started = performance.now();
    // 10 rows a chunk at 200 rows a second: 50 ms a chunk, three chunks in the pass (Node's timers
    // count whole milliseconds of the loop's clock, so each may end up to about a millisecond early).
    await pacedPass({ rowsPerSecond: 200, chunkRows: 10 }, 30, due.chunk);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('does not wait after the chunk that ends the sweep', async () => {
    const due = backlog(5);
    const started = performance.now();
    // One chunk a minute would be the pace; the only chunk finds everything.
    await pacedPass({ rowsPerSecond: 1, chunkRows: 60 }, 500, due.chunk);
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
