import type { Cache } from '../cache/cache.ts';
import { RedisCache } from '../cache/redis/redis-cache.ts';
import { MemoryBucketStore } from './memory-bucket-store.ts';
import { RedisBucketStore } from './redis-bucket-store.ts';
import type { BucketLimit, TakeResult } from './token-bucket.ts';

/** Where buckets live. `take` refills, checks and spends in one atomic step per key. */
export interface TokenBucketStore {
  take(key: string, limit: BucketLimit, cost: number): Promise<TakeResult>;
  close(): Promise<void>;
}

/**
 * The store that matches the process's cache: buckets in the same Redis (a Lua script) when CACHE_URL is
 * set, in process memory otherwise, like the embedded MemoryCache (one process, so one set of buckets).
 */
export function tokenBucketStoreFor(cache: Cache): TokenBucketStore {
  if (cache instanceof RedisCache) return new RedisBucketStore(cache.client);
  return new MemoryBucketStore();
}
