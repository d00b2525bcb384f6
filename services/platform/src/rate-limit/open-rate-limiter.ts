import type { Registry } from 'prom-client';
import type { Cache } from '../cache/cache.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '@shop/runtime';
import { MemoryBucketStore } from '../cache/memory/memory-bucket-store.ts';
import { tokenBucketStoreFor } from './bucket-store.ts';
import { RateLimiter } from './limiter.ts';
import { RateLimitPolicies, type RateLimitPoliciesOptions } from './policies.ts';

export interface OpenRateLimiterOptions {
  readonly database: Pick<Database, 'pool' | 'url' | 'mode'>;
  readonly cache: Cache;
  readonly metrics: Registry;
  readonly logger: Logger;
  readonly policies?: Partial<Pick<RateLimitPoliciesOptions, 'pollWhileListeningMs' | 'pollWhileDeafMs' | 'defaults'>>;
}

export interface OpenedRateLimiter {
  readonly limiter: RateLimiter;
  readonly policies: RateLimitPolicies;
  /** Stops listening for policy changes and releases the buckets held in memory. */
  close(): Promise<void>;
}

/**
 * A limiter over a platform's database and cache: policies from rate_limit_policies (listening for changes,
 * except on the embedded database, which is polled), buckets in the cache's Redis or in memory.
 */
export async function openRateLimiter(options: OpenRateLimiterOptions): Promise<OpenedRateLimiter> {
  const { database, cache, metrics, logger } = options;
  const policies = new RateLimitPolicies({
    pool: database.pool,
    url: database.url,
    logger,
    listen: database.mode !== 'embedded',
    ...options.policies,
  });
  await policies.start();
  const store = tokenBucketStoreFor(cache);
  // An in-process cache cannot go down: only Redis needs per-process buckets behind it.
  const fallback = cache.mode === 'external' ? new MemoryBucketStore() : undefined;
  const limiter = new RateLimiter({ store, policies, metrics, logger, ...(fallback === undefined ? {} : { fallback }) });
  return {
    limiter,
    policies,
    async close() {
      await Promise.allSettled([policies.close(), store.close(), fallback?.close()]);
    },
  };
}
