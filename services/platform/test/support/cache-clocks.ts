// The caches the contract tests run against, each with the way time passes for it: the embedded cache
// on a clock of the test's, moved at once; a real Redis on its own clock (TIME), which only real time moves.
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { createLogger } from '@shop/runtime';
import type { Cache } from '../../src/cache/cache.ts';
import { MemoryCache } from '../../src/cache/memory/memory-cache.ts';
import { RedisCache } from '../../src/cache/redis/redis-cache.ts';

export interface ClockedCache {
  readonly cache: Cache;
  /** Lets `ms` pass on the cache's clock: its TTLs and its buckets' refill. */
  elapse(ms: number): Promise<void>;
}

/** The embedded cache with its TTLs and buckets on one clock that only `elapse` moves. */
export function memoryCacheOnTestClock(): ClockedCache {
  let now = Date.now();
  return {
    cache: new MemoryCache(
      () => now,
      () => now,
    ),
    elapse: async (ms) => {
      now += ms;
    },
  };
}

export async function openRedisCache(url = inject('redisUrl')): Promise<RedisCache> {
  const cache = new RedisCache(url, createLogger({ level: 'ERROR', service: 'test' }));
  cache.connect();
  await new Promise((resolve) => cache.client.once('ready', resolve));
  return cache;
}

export async function redisCacheOnItsClock(): Promise<ClockedCache> {
  const cache = await openRedisCache();
  // why: Redis expires keys and refills buckets on its own clock (TIME), which no test can move
  return { cache, elapse: (ms) => sleep(ms) };
}
