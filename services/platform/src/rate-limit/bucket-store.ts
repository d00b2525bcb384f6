import type { Cache } from '../cache/cache.ts';
import type { BucketLimit, TakeResult } from '../cache/token-bucket.ts';

/** Where buckets live. `take` refills, checks and spends in one atomic step per key. */
export interface TokenBucketStore {
  take(key: string, limit: BucketLimit, cost: number): Promise<TakeResult>;
  close(): Promise<void>;
}

/**
 * The buckets of the process's cache (Cache.takeTokens): in Redis when CACHE_URL is set, in process memory
 * otherwise (one process, so one set of buckets). The cache holds them, so closing the store leaves them.
 */
export function tokenBucketStoreFor(cache: Cache): TokenBucketStore {
  return {
    take: (key, limit, cost) => cache.takeTokens(key, limit, cost),
    close: async () => {},
  };
}
