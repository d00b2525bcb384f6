import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/cache/memory/memory-bucket-store.ts';
import { takeFromBucket } from '../../src/cache/token-bucket.ts';
import { refillWindowSeconds } from '../../src/rate-limit/policy.ts';

/** The memory store on a clock the test moves: the same arithmetic as the Lua script, without waiting. */
function clockedStore() {
  let now = 1_000_000;
  const store = new MemoryBucketStore(() => now);
  return { store, advance: (ms: number) => (now += ms) };
}

const takeMany = async (store: MemoryBucketStore, n: number, limit = { capacity: 10, refillPerSecond: 1 }) => {
  let allowed = 0;
  for (let i = 0; i < n; i += 1) if ((await store.take('k', limit, 1)).allowed) allowed += 1;
  return allowed;
};

describe('token bucket arithmetic (memory store, controlled clock)', () => {
  it('gives a new caller exactly capacity, then limits with the time to the next token', async () => {
    const { store } = clockedStore();
    expect(await takeMany(store, 15)).toBe(10);
    const refused = await store.take('k', { capacity: 10, refillPerSecond: 1 }, 1);
    expect(refused).toMatchObject({ allowed: false, tokens: 0, retryAfterMs: 1000, fullInMs: 10_000 });
  });

  it('gives a caller idle for an hour at most capacity in a burst', async () => {
    const { store, advance } = clockedStore();
    await takeMany(store, 10);
    advance(3_600_000);
    expect(await takeMany(store, 100)).toBe(10);
  });

  it('allows a steady rate at the refill rate forever and throttles a faster one to the refill rate', async () => {
    const { store, advance } = clockedStore();
    const limit = { capacity: 1, refillPerSecond: 10 };
    let allowed = 0;
    for (let i = 0; i < 1000; i += 1) {
      if ((await store.take('at', limit, 1)).allowed) allowed += 1;
      advance(100);
    }
    expect(allowed).toBe(1000);

    allowed = 0;
    for (let i = 0; i < 1000; i += 1) {
      if ((await store.take('above', limit, 1)).allowed) allowed += 1;
      advance(50); // 20/s against 10/s
    }
    expect(allowed).toBe(500);
  });

  it('refills fractional rates: one token a minute', async () => {
    const { store, advance } = clockedStore();
    const limit = { capacity: 2, refillPerSecond: 0.016667 };
    expect(await takeMany(store, 3, limit)).toBe(2);
    advance(59_000);
    expect((await store.take('k', limit, 1)).allowed).toBe(false);
    advance(1_000);
    expect((await store.take('k', limit, 1)).allowed).toBe(true);
  });

  it('refills nothing when the clock goes backwards', () => {
    const limit = { capacity: 5, refillPerSecond: 1 };
    const { state } = takeFromBucket({ tokens: 0, updatedAtMs: 10_000 }, 5_000, limit, 0);
    expect(state).toEqual({ tokens: 0, updatedAtMs: 10_000 });
  });

  it('clamps a bucket to a lowered capacity', () => {
    const { result } = takeFromBucket({ tokens: 50, updatedAtMs: 0 }, 0, { capacity: 3, refillPerSecond: 1 }, 1);
    expect(result.tokens).toBe(2);
  });

  it('forgets buckets once they would be full again', async () => {
    const { store, advance } = clockedStore();
    await store.take('k', { capacity: 2, refillPerSecond: 1 }, 1);
    advance(3_001);
    expect((await store.take('k', { capacity: 2, refillPerSecond: 1 }, 1)).tokens).toBe(1);
    await store.close();
  });

  it('advertises the window an empty bucket takes to fill', () => {
    expect(refillWindowSeconds({ capacity: 100, refillPerSecond: 10 })).toBe(10);
    expect(refillWindowSeconds({ capacity: 10, refillPerSecond: 0.016667 })).toBe(600);
    expect(refillWindowSeconds({ capacity: 1, refillPerSecond: 50 })).toBe(1);
  });
});
