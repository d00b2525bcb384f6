import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { uniqueName } from '../../../../test/infra/isolation.ts';
import { createLogger } from '@shop/runtime';
import { MemoryCache } from '../../src/cache/memory/memory-cache.ts';
import { MemoryBucketStore } from '../../src/cache/memory/memory-bucket-store.ts';
import { RedisCache } from '../../src/cache/redis/redis-cache.ts';
import { tokenBucketStoreFor, type TokenBucketStore } from '../../src/rate-limit/bucket-store.ts';
import { RateLimiter } from '../../src/rate-limit/limiter.ts';
import type { RateLimitDecision } from '../../src/rate-limit/decisions.ts';
import type { RateLimitPolicy } from '../../src/rate-limit/policy.ts';
import { capturingLogger } from '../support/rate-limit.ts';
import { memoryCacheOnTestClock, openRedisCache, redisCacheOnItsClock, type ClockedCache } from '../support/cache-clocks.ts';

const quietLogger = createLogger({ level: 'ERROR', service: 'test' });

/** Policies the test can change: each test adds its own keys. */
function mutablePolicies() {
  const byKey = new Map<string, RateLimitPolicy>();
  return {
    get: (key: string) => byKey.get(key),
    add(capacity: number, refillPerSecond: number, enabled = true): string {
      const key = uniqueName('policy');
      byKey.set(key, { key, capacity, refillPerSecond, enabled });
      return key;
    },
    set: (policy: RateLimitPolicy) => byKey.set(policy.key, policy),
  };
}

const allowedCount = (decisions: ReadonlyArray<RateLimitDecision | undefined>) => decisions.filter((d) => d?.allowed).length;

/** `count` takes `intervalMs` apart on the cache's clock: the request rate against the refill rate is what these tests are about. */
async function paced(
  count: number,
  intervalMs: number,
  elapse: ClockedCache['elapse'],
  take: () => Promise<RateLimitDecision | undefined>,
) {
  const decisions: Array<RateLimitDecision | undefined> = [];
  for (let i = 0; i < count; i += 1) {
    decisions.push(await take());
    await elapse(intervalMs);
  }
  return decisions;
}

/** The same behaviour, with buckets in a real Redis (Lua) and in process memory; `elapse` lets time pass on the buckets' clock. */
function limiterContract(name: string, open: () => Promise<ClockedCache>, extraStores: () => Promise<TokenBucketStore[]>) {
  describe(name, () => {
    let cache: ClockedCache['cache'];
    let elapse: ClockedCache['elapse'];
    let store: TokenBucketStore;
    let limiter: RateLimiter;
    let metrics: Registry;
    const policies = mutablePolicies();

    beforeAll(async () => {
      ({ cache, elapse } = await open());
      store = tokenBucketStoreFor(cache);
      metrics = new Registry();
      limiter = new RateLimiter({ store, policies, metrics, logger: quietLogger, timeoutMs: 2_000 });
    });
    afterAll(async () => {
      await store?.close();
      await cache?.close();
    });

    it('allows a burst up to capacity, then limits with the time until the next token', async () => {
      const key = policies.add(5, 0.01);
      const decisions = [];
      for (let i = 0; i < 7; i += 1) decisions.push(await limiter.take(key, 'caller'));
      expect(decisions.map((d) => d?.result)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'limited', 'limited']);
      expect(decisions.map((d) => d?.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
      expect(decisions[0]).toMatchObject({ retryAfterSeconds: 0, resetSeconds: 100 });
      // One token takes 100 s at 0.01/s; a full bucket 500 s.
      expect(decisions[6]).toMatchObject({ allowed: false, retryAfterSeconds: 100, resetSeconds: 500 });
    });

    it('gives a caller idle for longer than the bucket takes to fill at most capacity in a burst', async () => {
      const key = policies.add(5, 20);
      await Promise.all(Array.from({ length: 5 }, () => limiter.take(key, 'idle')));
      await elapse(1_000); // 20 tokens' worth of refill
      const burst = await Promise.all(Array.from({ length: 15 }, () => limiter.take(key, 'idle')));
      expect(allowedCount(burst)).toBe(5);
    });

    it('throttles a steady rate above the refill rate to about the refill rate', async () => {
      const key = policies.add(2, 10);
      const decisions = await paced(20, 50, elapse, () => limiter.take(key, 'fast')); // 20/s for 1 s against 10/s
      const allowed = allowedCount(decisions);
      expect(decisions.length - allowed).toBeGreaterThanOrEqual(5);
      expect(allowed).toBeLessThanOrEqual(14); // 2 of burst + 10 refilled, with slack for timer drift
    });

    it('allows a steady rate at and below the refill rate', async () => {
      const key = policies.add(2, 10);
      expect(allowedCount(await paced(15, 100, elapse, () => limiter.take(key, 'at-rate')))).toBe(15);
      expect(allowedCount(await paced(8, 200, elapse, () => limiter.take(key, 'below-rate')))).toBe(8);
    });

    it('keeps a bucket per caller', async () => {
      const key = policies.add(3, 0.01);
      for (let i = 0; i < 3; i += 1) await limiter.take(key, '203.0.113.1');
      expect((await limiter.take(key, '203.0.113.1'))?.allowed).toBe(false);
      const other = await Promise.all(Array.from({ length: 4 }, () => limiter.take(key, '203.0.113.2')));
      expect(allowedCount(other)).toBe(3);
      expect((await limiter.take(key, '203.0.113.1'))?.allowed).toBe(false);
    });

    it('keeps a bucket per policy', async () => {
      const first = policies.add(1, 0.01);
      const second = policies.add(1, 0.01);
      expect((await limiter.take(first, 'both'))?.allowed).toBe(true);
      expect((await limiter.take(first, 'both'))?.allowed).toBe(false);
      expect((await limiter.take(second, 'both'))?.allowed).toBe(true);
    });

    it('limits nothing under a disabled policy or a key with no policy', async () => {
      const key = policies.add(1, 0.01, false);
      const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.take(key, 'disabled')));
      expect(decisions.every((decision) => decision === undefined)).toBe(true);
      expect(await limiter.take('no-such-policy', 'anyone')).toBeUndefined();
    });

    it('never allows more than capacity to 50 concurrent takes, from several connections', async () => {
      const key = policies.add(10, 0.001);
      const limiters = [
        limiter,
        ...(await extraStores()).map(
          (extra) => new RateLimiter({ store: extra, policies, metrics, logger: quietLogger, timeoutMs: 2_000 }),
        ),
      ];
      const decisions = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (limiters[i % limiters.length] as RateLimiter).take(key, 'concurrent')),
      );
      expect(allowedCount(decisions)).toBe(10);
      expect(decisions.filter((decision) => decision?.result === 'limited')).toHaveLength(40);
    });

    it('applies a changed policy to existing buckets: a lower capacity caps them', async () => {
      const key = policies.add(10, 0.01);
      await limiter.take(key, 'changed');
      policies.set({ key, capacity: 2, refillPerSecond: 0.01, enabled: true });
      const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.take(key, 'changed')));
      expect(allowedCount(decisions)).toBe(2);
    });

    it('refuses a cost above capacity without touching the bucket', async () => {
      const key = policies.add(3, 1);
      expect(await limiter.take(key, 'costly', 4)).toMatchObject({ allowed: false, result: 'limited', retryAfterSeconds: 3 });
      expect(await limiter.take(key, 'costly', 3)).toMatchObject({ allowed: true, remaining: 0 });
    });

    it('counts decisions in rate_limit_decisions_total by policy and result', async () => {
      const key = policies.add(1, 0.01);
      await limiter.take(key, 'counted');
      await limiter.take(key, 'counted');
      await limiter.take(key, 'counted');
      const { values } = await (metrics.getSingleMetric('rate_limit_decisions_total')?.get() ?? { values: [] });
      const count = (result: string) => values.find((v) => v.labels.policy === key && v.labels.result === result)?.value;
      expect([count('allowed'), count('limited')]).toEqual([1, 2]);
    });
  });
}

limiterContract(
  'RateLimiter over MemoryCache (embedded: buckets in process memory)',
  async () => memoryCacheOnTestClock(),
  async () => [],
);

const extraRedisStores: RedisCache[] = [];
afterAll(async () => {
  await Promise.all(extraRedisStores.map((cache) => cache.close()));
});
limiterContract('RateLimiter over RedisCache (real Redis, Lua script)', redisCacheOnItsClock, async () => {
  const caches = await Promise.all(Array.from({ length: 4 }, () => openRedisCache()));
  extraRedisStores.push(...caches);
  return caches.map((cache) => tokenBucketStoreFor(cache));
});

describe('the bucket store for a cache', () => {
  it("spends the cache's own buckets, and closing it leaves them to the cache", async () => {
    const cache = new MemoryCache();
    const store = tokenBucketStoreFor(cache);
    const limit = { capacity: 2, refillPerSecond: 0.01 };
    expect((await store.take('shared', limit, 1)).allowed).toBe(true);
    await store.close();
    expect((await cache.takeTokens('shared', limit, 1)).allowed).toBe(true);
    expect((await store.take('shared', limit, 1)).allowed).toBe(false);
    await cache.close();
  });
});

describe('when the bucket store fails', () => {
  const policy: RateLimitPolicy = { key: 'down', capacity: 1, refillPerSecond: 0.01, enabled: true };
  const policies = { get: (key: string) => (key === policy.key ? policy : undefined) };

  async function failOpenCount(metrics: Registry): Promise<number | undefined> {
    const { values } = await (metrics.getSingleMetric('rate_limit_decisions_total')?.get() ?? { values: [] });
    return values.find((v) => v.labels.policy === 'down' && v.labels.result === 'fail_open')?.value;
  }

  it('fails open while Redis is down, counts it, logs the outage once and its end once', async () => {
    const cache = await openRedisCache();
    const { logger, lines } = capturingLogger();
    const metrics = new Registry();
    const limiter = new RateLimiter({ store: tokenBucketStoreFor(cache), policies, metrics, logger });
    const caller = uniqueName('down');
    expect(await limiter.take('down', caller)).toMatchObject({ allowed: true, result: 'allowed' });

    const ended = once(cache.client, 'end');
    cache.client.disconnect();
    await ended;
    const during = await Promise.all(Array.from({ length: 5 }, () => limiter.take('down', caller)));
    expect(during.every((decision) => decision?.allowed && decision.result === 'fail_open')).toBe(true);
    expect(during[0]?.remaining).toBeUndefined();
    expect(await failOpenCount(metrics)).toBe(5);
    expect(lines.filter((line) => line.level === 'WARNING')).toHaveLength(1);

    await cache.client.connect();
    expect(await limiter.take('down', caller)).toMatchObject({ allowed: false, result: 'limited' });
    expect(lines.filter((line) => line.level === 'INFO' && /again/.test(line.msg))).toHaveLength(1);
    await cache.close();
  });

  it('fails open when Redis was never reachable', async () => {
    const cache = new RedisCache('redis://127.0.0.1:1', quietLogger);
    cache.connect();
    const metrics = new Registry();
    const limiter = new RateLimiter({ store: tokenBucketStoreFor(cache), policies, metrics, logger: quietLogger });
    const decisions = await Promise.all(Array.from({ length: 3 }, () => limiter.take('down', 'never')));
    expect(decisions.map((decision) => decision?.result)).toEqual(['fail_open', 'fail_open', 'fail_open']);
    expect(await failOpenCount(metrics)).toBe(3);
    await cache.close();
  });

  it('fails open when the store hangs longer than the timeout', async () => {
    const hung: TokenBucketStore = { take: () => new Promise(() => {}), close: async () => {} };
    const limiter = new RateLimiter({ store: hung, policies, metrics: new Registry(), logger: quietLogger, timeoutMs: 50 });
    const started = performance.now();
    expect(await limiter.take('down', 'hung')).toMatchObject({ allowed: true, result: 'fail_open' });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('fails open when the in-process store throws', async () => {
    const broken: TokenBucketStore = { take: async () => Promise.reject(new Error('broken')), close: async () => {} };
    const limiter = new RateLimiter({ store: broken, policies, metrics: new Registry(), logger: quietLogger });
    expect(await limiter.take('down', 'broken')).toMatchObject({ allowed: true, result: 'fail_open' });
  });

  it('keeps sign-in, sign-up and lead policies per process while Redis is down, and fails the others open', async () => {
    const login: RateLimitPolicy = { key: 'graphql:loginCustomer', capacity: 2, refillPerSecond: 0.01, enabled: true };
    const both = { get: (key: string) => (key === login.key ? login : key === policy.key ? policy : undefined) };
    const cache = new RedisCache('redis://127.0.0.1:1', quietLogger);
    cache.connect();
    const fallback = new MemoryBucketStore();
    const { logger, lines } = capturingLogger();
    const limiter = new RateLimiter({ store: tokenBucketStoreFor(cache), policies: both, metrics: new Registry(), logger, fallback });
    try {
      const logins = await Promise.all(Array.from({ length: 3 }, () => limiter.take(login.key, 'guesser')));
      expect(logins.map((decision) => decision?.result)).toEqual(['allowed', 'allowed', 'limited']);
      expect(logins[2]).toMatchObject({ allowed: false, remaining: 0 });
      expect(logins[2]?.retryAfterSeconds).toBeGreaterThan(0);
      expect(await limiter.take(login.key, 'someone else')).toMatchObject({ allowed: true, result: 'allowed' });
      const general = await Promise.all(Array.from({ length: 3 }, () => limiter.take(policy.key, 'guesser')));
      expect(general.map((decision) => decision?.result)).toEqual(['fail_open', 'fail_open', 'fail_open']);
      expect(lines.filter((line) => line.level === 'WARNING')).toHaveLength(1);
    } finally {
      await Promise.all([cache.close(), fallback.close()]);
    }
  });
});
