import { afterAll, describe, expect, inject, it } from 'vitest';
import { Registry } from 'prom-client';
import { createLogger } from '@shop/runtime';
import type { Cache } from '../../src/cache/cache.ts';
import { MeasuredCache } from '../../src/cache/measured-cache.ts';
import { MemoryCache } from '../../src/cache/memory/memory-cache.ts';
import { RedisCache } from '../../src/cache/redis/redis-cache.ts';
import { uniqueName } from '../../../../test/infra/isolation.ts';

const quietLogger = createLogger({ level: 'ERROR', service: 'test' });

async function counts(registry: Registry): Promise<Record<string, number>> {
  const [metric] = await registry.getMetricsAsJSON();
  return Object.fromEntries((metric?.values ?? []).map(({ labels, value }) => [`${labels.operation} ${labels.result}`, value]));
}

async function connectedRedis(url: string): Promise<RedisCache> {
  const cache = new RedisCache(url, quietLogger);
  cache.connect();
  await new Promise((resolve) => cache.client.once('ready', resolve));
  return cache;
}

describe.each([
  ['MemoryCache', async () => new MemoryCache()],
  ['RedisCache (real Redis)', () => connectedRedis(inject('redisUrl'))],
] as const)('MeasuredCache over %s', (_name, open: () => Promise<Cache>) => {
  const closing: Cache[] = [];
  afterAll(() => Promise.all(closing.map((cache) => cache.close())));

  it('counts each operation by result, hits and misses apart', async () => {
    const registry = new Registry();
    const inner = await open();
    const cache = new MeasuredCache(inner, registry);
    closing.push(cache);
    const key = uniqueName('measured');
    expect(cache.mode).toBe(inner.mode);
    expect(await cache.get(key)).toBeUndefined();
    await cache.set(key, 'v', 5);
    expect(await cache.get(key)).toBe('v');
    expect(await cache.setIfAbsent(key, 'w', 5)).toBe(false);
    expect(await cache.setIfAbsent(`${key}:new`, 'w', 5)).toBe(true);
    await cache.delete(key);
    const taken = await cache.takeTokens(`${key}:bucket`, { capacity: 2, refillPerSecond: 1 }, 1);
    expect(taken.allowed).toBe(true);
    expect((await cache.chargeAndClaim(undefined, { keys: [`${key}:claim`], ttlSeconds: 5 })).claimed).toEqual([true]);
    expect(await counts(registry)).toEqual({
      'get miss': 1,
      'get hit': 1,
      'set ok': 1,
      'setIfAbsent exists': 1,
      'setIfAbsent stored': 1,
      'delete ok': 1,
      'takeTokens ok': 1,
      'chargeAndClaim ok': 1,
    });
  });
});

describe('MeasuredCache over a cache that does not answer', () => {
  it('counts the failure as error and passes it on', async () => {
    const registry = new Registry();
    const down = new RedisCache('redis://127.0.0.1:1', quietLogger); // nothing listens on port 1
    down.connect();
    const cache = new MeasuredCache(down, registry);
    try {
      await expect(cache.get('any')).rejects.toThrow();
      await expect(cache.setIfAbsent('any', 'v', 5)).rejects.toThrow();
      expect(await counts(registry)).toEqual({ 'get error': 1, 'setIfAbsent error': 1 });
    } finally {
      await cache.close();
    }
  });
});
