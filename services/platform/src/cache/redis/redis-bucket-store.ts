import type { Redis } from 'ioredis';
import type { BucketLimit, TakeResult } from '../token-bucket.ts';
import { RedisScript, TAKE_TOKENS_LUA } from './bucket-scripts.ts';

const TAKE_TOKENS = new RedisScript(TAKE_TOKENS_LUA);

/** Token buckets in Redis for RedisCache.takeTokens: one EVALSHA of TAKE_TOKENS_LUA per take. */
export class RedisBucketStore {
  readonly #client: Redis;

  constructor(client: Redis) {
    this.#client = client;
  }

  async take(key: string, limit: BucketLimit, cost: number): Promise<TakeResult> {
    const reply = await TAKE_TOKENS.run(this.#client, [key], [limit.capacity, limit.refillPerSecond, cost]);
    const [allowed, tokens, retryAfterMs, fullInMs] = reply as [number, string, number, number];
    return { allowed: allowed === 1, tokens: Number(tokens), retryAfterMs, fullInMs };
  }

  /** The client belongs to the cache, which closes it. */
  async close(): Promise<void> {}
}
