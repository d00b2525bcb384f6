import { Redis } from 'ioredis';
import type { Logger } from '@shop/runtime';
import type { BucketCharge, Cache, ChargeAndClaimResult, Claims } from '../cache.ts';
import type { BucketLimit, TakeResult } from '../token-bucket.ts';
import { ChargeBatcher } from './charge-batcher.ts';
import { RedisBucketStore } from './redis-bucket-store.ts';

const MAX_RECONNECT_DELAY_MS = 2_000;

export interface RedisCacheOptions {
  /** A chargeAndClaim not answered within this fails, so a hung Redis cannot hold its callers. */
  readonly chargeTimeoutMs?: number;
}

const DEFAULT_CHARGE_TIMEOUT_MS = 250;

/**
 * ioredis over CACHE_URL. Commands fail at once while disconnected (no offline queue), so a
 * lost cache shows in /ready within one probe instead of requests piling up behind it.
 */
export class RedisCache implements Cache {
  readonly mode = 'external';
  readonly client: Redis;
  readonly #buckets: RedisBucketStore;
  readonly #charges: ChargeBatcher;

  constructor(url: string, logger: Logger, options: RedisCacheOptions = {}) {
    this.client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
    });
    let reportedDown = false;
    this.client.on('error', (error: Error) => {
      if (!reportedDown) logger.warn({ err: error }, 'cache connection lost');
      reportedDown = true;
    });
    this.client.on('ready', () => {
      if (reportedDown) logger.info('cache connection restored');
      reportedDown = false;
    });
    this.#buckets = new RedisBucketStore(this.client);
    this.#charges = new ChargeBatcher(this.client, options.chargeTimeoutMs ?? DEFAULT_CHARGE_TIMEOUT_MS);
  }

  /** Starts connecting; the process starts even when the cache is down and reports it in /ready. */
  connect(): void {
    this.client.connect().catch(() => {});
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.client.get(key)) ?? undefined;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds === undefined) await this.client.set(key, value);
    else await this.client.set(key, value, 'PX', Math.round(ttlSeconds * 1000));
  }

  async setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    const result =
      ttlSeconds === undefined
        ? await this.client.set(key, value, 'NX')
        : await this.client.set(key, value, 'PX', Math.round(ttlSeconds * 1000), 'NX');
    return result === 'OK';
  }

  async delete(key: string): Promise<void> {
    await this.client.del(key);
  }

  /** One EVALSHA of TAKE_TOKENS_LUA (bucket-scripts.ts): the bucket is a hash {t, ts} on the Redis clock. */
  takeTokens(key: string, limit: BucketLimit, cost: number): Promise<TakeResult> {
    return this.#buckets.take(key, limit, cost);
  }

  /** CHARGE_AND_CLAIM_LUA, one script call for the charges made together (ChargeBatcher). */
  chargeAndClaim(charge: BucketCharge | undefined, claims: Claims): Promise<ChargeAndClaimResult> {
    return this.#charges.run(charge, claims);
  }

  async close(): Promise<void> {
    if (this.client.status === 'ready') await this.client.quit();
    else this.client.disconnect();
  }
}
