import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Cache } from '../../src/cache/cache.ts';
import { CHARGE_AND_CLAIM_LUA, RedisScript, TAKE_TOKENS_LUA } from '../../src/cache/redis/bucket-scripts.ts';
import type { RedisCache } from '../../src/cache/redis/redis-cache.ts';
import { uniqueName } from '../../../../test/infra/isolation.ts';
import { memoryCacheOnTestClock, openRedisCache, redisCacheOnItsClock, type ClockedCache } from '../support/cache-clocks.ts';

/** The same contract, run against the embedded cache and a real Redis; `elapse` lets time pass on the cache's clock. */
function cacheContract(name: string, open: () => Promise<ClockedCache>) {
  describe(name, () => {
    let cache: Cache;
    let elapse: ClockedCache['elapse'];
    const key = (suffix: string) => `${uniqueName('cache')}:${suffix}`;

    beforeAll(async () => {
      ({ cache, elapse } = await open());
    });
    afterAll(async () => {
      await cache?.close();
    });

    it('answers a ping', async () => {
      await expect(cache.ping()).resolves.toBeUndefined();
    });

    it('stores, reads and deletes', async () => {
      const k = key('plain');
      expect(await cache.get(k)).toBeUndefined();
      await cache.set(k, 'v1');
      expect(await cache.get(k)).toBe('v1');
      await cache.delete(k);
      expect(await cache.get(k)).toBeUndefined();
    });

    it('forgets a value after its TTL', async () => {
      const k = key('ttl');
      await cache.set(k, 'short', 0.2);
      expect(await cache.get(k)).toBe('short');
      await elapse(350);
      expect(await cache.get(k)).toBeUndefined();
    });

    it('stores only the first of concurrent setIfAbsent calls', async () => {
      const k = key('nx');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.setIfAbsent(k, `writer-${i}`, 5)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await cache.get(k)).toBe(`writer-${results.indexOf(true)}`);
    });

    it('allows setIfAbsent again once the value expired', async () => {
      const k = key('nx-expire');
      expect(await cache.setIfAbsent(k, 'a', 0.2)).toBe(true);
      expect(await cache.setIfAbsent(k, 'b', 0.2)).toBe(false);
      await elapse(350);
      expect(await cache.setIfAbsent(k, 'c', 0.2)).toBe(true);
    });

    describe('token buckets (takeTokens)', () => {
      it('gives a new bucket its capacity, then refuses with the time to the next token and to a full bucket', async () => {
        const k = key('burst');
        const limit = { capacity: 5, refillPerSecond: 0.01 };
        const taken = [];
        for (let i = 0; i < 7; i += 1) taken.push(await cache.takeTokens(k, limit, 1));
        expect(taken.map((result) => result.allowed)).toEqual([true, true, true, true, true, false, false]);
        // A missing bucket is a full one: 4 left, 100 s to the fifth token at 0.01/s.
        expect(taken[0]).toEqual({ allowed: true, tokens: 4, retryAfterMs: 0, fullInMs: 100_000 });
        const refused = taken[6];
        expect(refused?.tokens).toBeCloseTo(0, 2);
        expect(refused?.retryAfterMs).toBeGreaterThan(99_000);
        expect(refused?.retryAfterMs).toBeLessThanOrEqual(100_000);
        expect(refused?.fullInMs).toBeGreaterThan(499_000);
        expect(refused?.fullInMs).toBeLessThanOrEqual(500_000);
      });

      it('refills continuously at the refill rate', async () => {
        const k = key('refill');
        const limit = { capacity: 3, refillPerSecond: 5 };
        for (let i = 0; i < 3; i += 1) expect((await cache.takeTokens(k, limit, 1)).allowed).toBe(true);
        expect((await cache.takeTokens(k, limit, 1)).allowed).toBe(false);
        await elapse(250); // one token every 200 ms
        const after = await Promise.all(Array.from({ length: 3 }, () => cache.takeTokens(k, limit, 1)));
        expect(after.filter((result) => result.allowed)).toHaveLength(1);
      });

      it('never refills above capacity: an idle bucket gives one burst', async () => {
        const k = key('ceiling');
        const limit = { capacity: 3, refillPerSecond: 50 };
        await Promise.all(Array.from({ length: 3 }, () => cache.takeTokens(k, limit, 1)));
        await elapse(300); // 15 tokens' worth of refill
        const burst = await Promise.all(Array.from({ length: 10 }, () => cache.takeTokens(k, limit, 1)));
        expect(burst.filter((result) => result.allowed)).toHaveLength(3);
      });

      it('gives exactly capacity to many concurrent takes', async () => {
        const k = key('concurrent');
        const taken = await Promise.all(Array.from({ length: 30 }, () => cache.takeTokens(k, { capacity: 10, refillPerSecond: 0.001 }, 1)));
        expect(taken.filter((result) => result.allowed)).toHaveLength(10);
      });

      it('spends nothing when the cost is more than the tokens left', async () => {
        const k = key('cost');
        const limit = { capacity: 3, refillPerSecond: 0.01 };
        expect(await cache.takeTokens(k, limit, 2)).toMatchObject({ allowed: true, tokens: 1 });
        const refused = await cache.takeTokens(k, limit, 2);
        expect(refused.allowed).toBe(false);
        expect(refused.tokens).toBeCloseTo(1, 2);
        expect((await cache.takeTokens(k, limit, 1)).allowed).toBe(true);
      });
    });

    describe('charge and claim (chargeAndClaim)', () => {
      const limit = (capacity: number) => ({ capacity, refillPerSecond: 0.01 });

      it('charges the bucket, then stores each claimed key that is absent, in order', async () => {
        const bucket = key('bucket');
        const [a, b, c] = [key('a'), key('b'), key('c')];
        const first = await cache.chargeAndClaim({ key: bucket, limit: limit(5), cost: 1 }, { keys: [a, b, a], ttlSeconds: 5 });
        expect(first).toEqual({ taken: { allowed: true, tokens: 4, retryAfterMs: 0, fullInMs: 100_000 }, claimed: [true, true, false] });
        const second = await cache.chargeAndClaim({ key: bucket, limit: limit(5), cost: 1 }, { keys: [a, c], ttlSeconds: 5 });
        expect(second.taken?.allowed).toBe(true);
        expect(second.taken?.tokens).toBeCloseTo(3, 2);
        expect(second.claimed).toEqual([false, true]);
        expect(await cache.get(a)).toBe('1');
        expect(await cache.setIfAbsent(c, 'x', 5)).toBe(false);
      });

      it('claims nothing when the charge is refused, so a later claim of that key is the first', async () => {
        const bucket = key('refused');
        const [x, y] = [key('x'), key('y')];
        expect((await cache.chargeAndClaim({ key: bucket, limit: limit(1), cost: 1 }, { keys: [x], ttlSeconds: 5 })).claimed).toEqual([
          true,
        ]);
        const refused = await cache.chargeAndClaim({ key: bucket, limit: limit(1), cost: 1 }, { keys: [y], ttlSeconds: 5 });
        expect(refused.taken?.allowed).toBe(false);
        expect(refused.taken?.retryAfterMs).toBeGreaterThan(99_000);
        expect(refused.claimed).toEqual([]);
        expect(await cache.get(y)).toBeUndefined();
        expect(await cache.chargeAndClaim(undefined, { keys: [y], ttlSeconds: 5 })).toEqual({ taken: undefined, claimed: [true] });
      });

      it('spends the same buckets as takeTokens', async () => {
        const bucket = key('shared');
        expect((await cache.takeTokens(bucket, limit(2), 1)).allowed).toBe(true);
        expect((await cache.chargeAndClaim({ key: bucket, limit: limit(2), cost: 1 }, { keys: [], ttlSeconds: 5 })).taken?.allowed).toBe(
          true,
        );
        expect((await cache.takeTokens(bucket, limit(2), 1)).allowed).toBe(false);
      });

      it('lets exactly capacity of concurrent charges through, and exactly one of them stores a key they all claim', async () => {
        const bucket = key('race');
        const claimedKey = key('first');
        const results = await Promise.all(
          Array.from({ length: 30 }, () =>
            cache.chargeAndClaim({ key: bucket, limit: limit(10), cost: 1 }, { keys: [claimedKey], ttlSeconds: 5 }),
          ),
        );
        expect(results.filter((result) => result.taken?.allowed)).toHaveLength(10);
        expect(results.flatMap((result) => result.claimed).filter(Boolean)).toHaveLength(1);
        expect(results.filter((result) => result.claimed.length === 0)).toHaveLength(20);
      });

      it('forgets a claim after its TTL', async () => {
        const claimedKey = key('claim-ttl');
        const claim = () =>
          cache.chargeAndClaim({ key: key('claim-ttl-bucket'), limit: limit(5), cost: 1 }, { keys: [claimedKey], ttlSeconds: 0.2 });
        expect((await claim()).claimed).toEqual([true]);
        expect((await claim()).claimed).toEqual([false]);
        await elapse(350);
        expect((await claim()).claimed).toEqual([true]);
      });
    });
  });
}

cacheContract('MemoryCache (embedded)', async () => memoryCacheOnTestClock());
cacheContract('RedisCache (real Redis)', redisCacheOnItsClock);

describe('RedisCache scripts', () => {
  let cache: RedisCache;
  beforeAll(async () => {
    cache = await openRedisCache();
  });
  afterAll(async () => {
    await cache?.close();
  });

  it('runs a script again with EVAL when Redis lost it (NOSCRIPT)', async () => {
    const bucket = uniqueName('noscript');
    const limit = { capacity: 3, refillPerSecond: 0.01 };
    await cache.takeTokens(bucket, limit, 1);
    await cache.client.script('FLUSH');
    const second = await cache.takeTokens(bucket, limit, 1);
    expect(second.allowed).toBe(true);
    expect(second.tokens).toBeCloseTo(1, 1); // plus the few milliseconds' refill
    expect(await cache.client.script('EXISTS', new RedisScript(TAKE_TOKENS_LUA).sha)).toEqual([1]);

    await cache.client.script('FLUSH');
    const charged = await cache.chargeAndClaim({ key: bucket, limit, cost: 1 }, { keys: [uniqueName('noscript-claim')], ttlSeconds: 5 });
    expect(charged.taken?.allowed).toBe(true);
    expect(charged.claimed).toEqual([true]);
    expect(await cache.client.script('EXISTS', new RedisScript(CHARGE_AND_CLAIM_LUA).sha)).toEqual([1]);
  });

  it('stamps buckets with the Redis clock and lets them expire once they would be full', async () => {
    const bucket = uniqueName('ttl');
    await cache.takeTokens(bucket, { capacity: 4, refillPerSecond: 2 }, 1);
    const [seconds] = await cache.client.time();
    const stamped = Number(await cache.client.hget(bucket, 'ts'));
    expect(Math.abs(stamped - Number(seconds) * 1000)).toBeLessThan(2_000);
    const ttl = await cache.client.pttl(bucket);
    expect(ttl).toBeGreaterThan(2_000);
    expect(ttl).toBeLessThanOrEqual(3_000);
  });

  it('sets claimed keys with their TTL in milliseconds', async () => {
    const claimed = uniqueName('claim-pttl');
    await cache.chargeAndClaim(undefined, { keys: [claimed], ttlSeconds: 5 });
    const ttl = await cache.client.pttl(claimed);
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it('sends the charges made together in one script call', async () => {
    const evalsha = vi.spyOn(cache.client, 'evalsha');
    try {
      const bucket = uniqueName('batched');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          cache.chargeAndClaim(
            { key: bucket, limit: { capacity: 5, refillPerSecond: 0.01 }, cost: 1 },
            { keys: [`${bucket}:${i}`], ttlSeconds: 5 },
          ),
        ),
      );
      expect(results.filter((result) => result.taken?.allowed)).toHaveLength(5);
      expect(evalsha).toHaveBeenCalledTimes(1);
    } finally {
      evalsha.mockRestore();
    }
  });

  it('keeps the script small enough to read: it is TAKE_TOKENS_LUA', () => {
    expect(TAKE_TOKENS_LUA).toContain("redis.call('TIME')");
  });
});
