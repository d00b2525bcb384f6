import type { Config } from '../config/config.ts';
import type { Logger } from '@shop/runtime';
import type { Cache } from './cache.ts';
import { MemoryCache } from './memory/memory-cache.ts';
import { RedisCache } from './redis/redis-cache.ts';

export function openCache(config: Config, logger: Logger): Cache {
  if (config.cacheUrl === undefined) {
    logger.warn('CACHE_URL is not set: using the in-process cache (one process only)');
    return new MemoryCache();
  }
  const cache = new RedisCache(config.cacheUrl, logger);
  cache.connect();
  return cache;
}
