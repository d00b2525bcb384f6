import type { Registry } from 'prom-client';
import type { Config } from '../config/config.ts';
import type { Logger } from '@shop/runtime';
import type { Cache } from './cache.ts';
import { MeasuredCache } from './measured-cache.ts';
import { MemoryCache } from './memory/memory-cache.ts';
import { RedisCache } from './redis/redis-cache.ts';

/** The cache of CACHE_URL (or the in-process one), its operations counted in `metrics`. */
export function openCache(config: Config, logger: Logger, metrics: Registry): Cache {
  if (config.cacheUrl === undefined) {
    logger.warn('CACHE_URL is not set: using the in-process cache (one process only)');
    return new MeasuredCache(new MemoryCache(), metrics);
  }
  const cache = new RedisCache(config.cacheUrl, logger);
  cache.connect();
  return new MeasuredCache(cache, metrics);
}
