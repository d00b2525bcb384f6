import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { TokenBucketStore } from './bucket-store.ts';
import type { BucketLimit, TakeResult } from './token-bucket.ts';

/**
 * takeFromBucket (token-bucket.ts) as a Lua function, for scripts that charge buckets: refill, check and
 * spend are one atomic step however many api processes share the Redis. `now` is the Redis server's
 * (TIME), one clock for every process, so client clock skew cannot refill a bucket early. The bucket is a
 * hash {t: tokens, ts: ms} that expires once it would be full again. Returns {allowed 0|1, tokens (text),
 * retryMs, fullMs}.
 */
export const TAKE_FROM_BUCKET_LUA_FUNCTION = `
local function take_from_bucket(bucket, capacity, refill_per_second, cost, now)
  local rate_ms = refill_per_second / 1000
  local stored = redis.call('HMGET', bucket, 't', 'ts')
  local tokens = tonumber(stored[1])
  local updated = tonumber(stored[2])
  if tokens == nil or updated == nil then
    tokens = capacity
    updated = now
  else
    local elapsed = now - updated
    if elapsed < 0 then elapsed = 0 end
    tokens = math.min(capacity, tokens + elapsed * rate_ms)
    if now > updated then updated = now end
  end
  local allowed = 0
  if tokens + 1e-9 >= cost then
    allowed = 1
    tokens = math.max(0, tokens - cost)
  end
  redis.call('HSET', bucket, 't', string.format('%.17g', tokens), 'ts', string.format('%.17g', updated))
  redis.call('PEXPIRE', bucket, math.ceil(capacity / rate_ms) + 1000)
  local retry = 0
  if allowed == 0 then retry = math.ceil((cost - tokens) / rate_ms) end
  return {allowed, string.format('%.17g', tokens), retry, math.ceil((capacity - tokens) / rate_ms)}
end
`;

/** The Redis server's clock in milliseconds, for take_from_bucket. */
export const REDIS_NOW_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
`;

/** One take. KEYS[1] bucket; ARGV capacity, refill per second, cost. */
export const TAKE_TOKENS_LUA = `${REDIS_NOW_LUA}${TAKE_FROM_BUCKET_LUA_FUNCTION}
return take_from_bucket(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), now)
`;

const TAKE_TOKENS_SHA = createHash('sha1').update(TAKE_TOKENS_LUA).digest('hex');

/**
 * Buckets in Redis (the cache's own ioredis client). EVALSHA sends only the script's digest; after a
 * restart, SCRIPT FLUSH or failover to a replica that never saw it, Redis answers NOSCRIPT and the take is
 * retried once with EVAL, which also caches the script again.
 */
export class RedisBucketStore implements TokenBucketStore {
  readonly #client: Redis;

  constructor(client: Redis) {
    this.#client = client;
  }

  async take(key: string, limit: BucketLimit, cost: number): Promise<TakeResult> {
    const args = [limit.capacity, limit.refillPerSecond, cost];
    let reply: unknown;
    try {
      reply = await this.#client.evalsha(TAKE_TOKENS_SHA, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await this.#client.eval(TAKE_TOKENS_LUA, 1, key, ...args);
    }
    const [allowed, tokens, retryAfterMs, fullInMs] = reply as [number, string, number, number];
    return { allowed: allowed === 1, tokens: Number(tokens), retryAfterMs, fullInMs };
  }

  /** The client belongs to the cache, which closes it. */
  async close(): Promise<void> {}
}
