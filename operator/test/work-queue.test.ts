import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay } from '../src/backoff.ts';
import { WorkQueue, type WorkQueueOptions } from '../src/work-queue.ts';

// The queue's timers and clock are faked: a test moves time itself, and what should not happen within
// a while is shown by moving the clock past it.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A pass that stays open until the test ends it. */
function gate() {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { open, closed };
}

/** Lets the passes that can run now run (the promises they wait for settle). */
const settle = () => vi.advanceTimersByTimeAsync(0);

/** A second on the clock: past every retry and requeue these queues schedule, short of a pass's 10 s deadline. */
const quietPeriod = () => vi.advanceTimersByTimeAsync(1_000);

function queue(handle: WorkQueueOptions['handle'], options: Partial<WorkQueueOptions> = {}): WorkQueue {
  return new WorkQueue({
    handle,
    concurrency: 4,
    backoff: { initialMs: 10, maxMs: 40 },
    passTimeoutMs: 10_000,
    random: () => 0,
    ...options,
  });
}

describe('WorkQueue', () => {
  it('never runs two passes of one key at once, and coalesces adds during a pass into one more pass', async () => {
    const passes: string[] = [];
    let running = 0;
    let overlapped = false;
    const first = gate();
    const work = queue(async (key) => {
      passes.push(key);
      running += 1;
      overlapped ||= running > 1;
      if (passes.length === 1) await first.closed;
      running -= 1;
      return undefined;
    });

    work.add('shop');
    await settle();
    expect(passes).toEqual(['shop']);
    for (let event = 0; event < 5; event += 1) work.add('shop');
    await quietPeriod();
    expect(passes).toEqual(['shop']);
    first.open();
    await settle();
    expect(passes).toEqual(['shop', 'shop']);
    await quietPeriod();
    expect(passes).toHaveLength(2);
    expect(overlapped).toBe(false);
    await work.stop();
  });

  it('runs different keys side by side, up to the concurrency', async () => {
    const started: string[] = [];
    const hold = gate();
    const work = queue(
      async (key) => {
        started.push(key);
        await hold.closed;
        return undefined;
      },
      { concurrency: 2 },
    );
    for (const key of ['a', 'b', 'c']) work.add(key);
    await settle();
    expect(started).toEqual(['a', 'b']);
    await quietPeriod();
    expect(started).toEqual(['a', 'b']);
    expect(work.depth()).toBe(1);
    hold.open();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(work.depth()).toBe(0);
    await work.stop();
  });

  it('retries a failing key with growing delays up to the cap, and starts again from the initial delay after a success', async () => {
    let passes = 0;
    const retries: number[] = [];
    const work = queue(
      async () => {
        passes += 1;
        if (passes < 5 || passes === 6) throw new Error('transient');
        return undefined;
      },
      { onError: (_key, _error, retryInMs) => retries.push(retryInMs) },
    );
    work.add('shop');
    await vi.advanceTimersByTimeAsync(10 + 20 + 40 + 40);
    expect(passes).toBe(5);
    expect(retries).toEqual([10, 20, 40, 40]);
    work.add('shop');
    await vi.advanceTimersByTimeAsync(10);
    expect(passes).toBe(7);
    expect(retries).toEqual([10, 20, 40, 40, 10]);
    await work.stop();
  });

  it('adds up to a tenth to each retry and requeue, drawn anew each time', async () => {
    const draws = [0.5, 0.99, 0];
    let passes = 0;
    const retries: number[] = [];
    const work = queue(
      async () => {
        passes += 1;
        if (passes <= 3) throw new Error('transient');
        return undefined;
      },
      {
        random: () => draws.shift() ?? 0,
        backoff: { initialMs: 100, maxMs: 1_000 },
        onError: (_key, _error, retryInMs) => retries.push(retryInMs),
      },
    );
    work.add('shop');
    await vi.advanceTimersByTimeAsync(105 + 220 + 400);
    expect(passes).toBe(4);
    expect(retries).toEqual([105, 220, 400]);
    await work.stop();
  });

  it('spaces the retries of all keys by the rate limit once its burst is spent', async () => {
    const starts = new Map<string, number[]>();
    const work = queue(
      async (key) => {
        const times = starts.get(key) ?? [];
        starts.set(key, [...times, Date.now()]);
        if (times.length === 0) throw new Error('transient');
        return undefined;
      },
      { rateLimit: { perSecond: 10, burst: 1 }, backoff: { initialMs: 1, maxMs: 1 } },
    );
    const firstAt = Date.now();
    for (const key of ['a', 'b', 'c']) work.add(key);
    await vi.advanceTimersByTimeAsync(200);
    expect([...starts.values()].map((times) => times.length)).toEqual([2, 2, 2]);
    const retriedAt = [...starts.values()].map((times) => (times[1] ?? 0) - firstAt).sort((x, y) => x - y);
    // The burst lets one retry through after its 1 ms backoff; the next come a tenth of a second apart.
    expect(retriedAt).toEqual([1, 100, 200]);
    await work.stop();
  });

  it('runs a key again after the delay a pass asks for', async () => {
    const times: number[] = [];
    const work = queue(async () => (times.push(Date.now()) === 1 ? { requeueAfterMs: 100 } : undefined));
    work.add('shop');
    await vi.advanceTimersByTimeAsync(99);
    expect(times).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(times).toHaveLength(2);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBe(100);
    await work.stop();
  });

  it('aborts a pass at its deadline and retries its key, while other keys go on', async () => {
    const errors: unknown[] = [];
    const passes: string[] = [];
    const work = queue(
      async (key, signal) => {
        passes.push(key);
        if (key !== 'hung' || passes.filter((pass) => pass === 'hung').length > 1) return undefined;
        await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
        return undefined;
      },
      { concurrency: 1, passTimeoutMs: 100, onError: (_key, error) => errors.push(error) },
    );
    work.add('hung');
    work.add('other');
    await vi.advanceTimersByTimeAsync(100 + 10);
    expect(passes).toEqual(['hung', 'other', 'hung']);
    expect(errors).toEqual([expect.objectContaining({ name: 'PassTimeoutError', message: 'the pass did not finish within 0.1 s' })]);
    expect(work.overdue()).toEqual([]);
    await work.stop();
  });

  it('reports a pass that runs on after its deadline as overdue, and keeps its key', async () => {
    const hold = gate();
    let passes = 0;
    const work = queue(
      async () => {
        passes += 1;
        await hold.closed; // ignores its signal
        return undefined;
      },
      { passTimeoutMs: 50 },
    );
    work.add('stuck');
    await vi.advanceTimersByTimeAsync(51);
    expect(work.overdue()).toEqual(['stuck']);
    work.add('stuck');
    await quietPeriod();
    expect(passes).toBe(1);
    hold.open();
    await settle();
    expect(work.overdue()).toEqual([]);
    await work.stop();
  });

  it('on stop lets the running pass finish and starts nothing more', async () => {
    const hold = gate();
    const passes: string[] = [];
    let finished = false;
    const work = queue(
      async (key) => {
        passes.push(key);
        await hold.closed;
        finished = true;
        return { requeueAfterMs: 1 };
      },
      { concurrency: 1 },
    );
    work.add('a');
    work.add('b');
    await settle();
    expect(passes).toEqual(['a']);
    const stopped = work.stop();
    work.add('c');
    hold.open();
    await stopped;
    expect(finished).toBe(true);
    await quietPeriod();
    expect(passes).toEqual(['a']);
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay and stops at the cap', () => {
    const policy = { initialMs: 1_000, maxMs: 300_000 };
    expect([1, 2, 3, 4, 9, 10, 1_000].map((failures) => backoffDelay(failures, policy))).toEqual([
      1_000, 2_000, 4_000, 8_000, 256_000, 300_000, 300_000,
    ]);
  });

  it('waits for a requeue further off than a timer can count (a key rotation a month away) instead of running again at once', async () => {
    let passes = 0;
    const work = queue(async () => {
      passes += 1;
      return { requeueAfterMs: 30 * 24 * 3_600_000 };
    });
    work.add('shop');
    await settle();
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(20 * 24 * 3_600_000);
    expect(passes).toBe(1);
    await work.stop();
  });
});
