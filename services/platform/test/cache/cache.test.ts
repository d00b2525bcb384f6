import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createLogger } from '@shop/runtime';
import type { Cache } from '../../src/cache/cache.ts';
import { MemoryCache } from '../../src/cache/memory/memory-cache.ts';
import { RedisCache } from '../../src/cache/redis/redis-cache.ts';
import { uniqueName } from '../../../../test/infra/isolation.ts';

// Waiting out a TTL is the behaviour under test: these sleeps stay.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same contract, run against the embedded cache and a real Redis. */
function cacheContract(name: string, open: () => Promise<Cache>) {
  describe(name, () => {
    let cache: Cache;
    const key = (suffix: string) => `${uniqueName('cache')}:${suffix}`;

    beforeAll(async () => {
      cache = await open();
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
      await sleep(350);
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
      await sleep(350);
      expect(await cache.setIfAbsent(k, 'c', 0.2)).toBe(true);
    });
  });
}

cacheContract('MemoryCache (embedded)', async () => new MemoryCache());

cacheContract('RedisCache (real Redis)', async () => {
  const cache = new RedisCache(inject('redisUrl'), createLogger({ level: 'ERROR', service: 'test' }));
  cache.connect();
  await new Promise((resolve) => cache.client.once('ready', resolve));
  return cache;
});
