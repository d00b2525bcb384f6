import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script sent by its SHA-1 (EVALSHA). After a restart, SCRIPT FLUSH or failover to a replica that
 * never saw it, Redis answers NOSCRIPT and the call is sent once more with EVAL, which caches it again.
 */
export class RedisScript {
  readonly lua: string;
  readonly sha: string;

  constructor(lua: string) {
    this.lua = lua;
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(client: Redis, keys: readonly string[], args: readonly (number | string)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}

/**
 * takeFromBucket (token-bucket.ts) as a Lua function, for scripts that charge buckets: refill, check and
 * spend are one atomic step however many api processes share the Redis. `now` is the Redis server's
 * (TIME), one clock for every process, so client clock skew cannot refill a bucket early. The bucket is a
 * hash {t: tokens, ts: ms} that expires once it would be full again. Returns {allowed 0|1, tokens (text),
 * retryMs, fullMs}.
 */
const TAKE_FROM_BUCKET_LUA_FUNCTION = `
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
const REDIS_NOW_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
`;

/** One take. KEYS[1] bucket; ARGV capacity, refill per second, cost. */
export const TAKE_TOKENS_LUA = `${REDIS_NOW_LUA}${TAKE_FROM_BUCKET_LUA_FUNCTION}
return take_from_bucket(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), now)
`;

/**
 * Charges of many calls in one script. Each is take_from_bucket, then, only when the charge is allowed,
 * SET NX PX of each of its claimed keys in order: atomic, so a refused call leaves no key behind and two
 * concurrent claims of one key cannot both store it. The time is the Redis server's (TIME), read once for
 * the batch. ARGV[1] the number of charges, then per charge: capacity (0: no bucket is touched), refill per
 * second, cost, claim time to live in ms, number of claimed keys. KEYS per charge: its bucket, then its
 * claimed keys. Returns per charge {allowed 0|1, tokens, retryMs, fullMs, {stored 0|1 per claim}}, or
 * {-1, message} when that charge failed (the others stand).
 */
export const CHARGE_AND_CLAIM_LUA = `${REDIS_NOW_LUA}${TAKE_FROM_BUCKET_LUA_FUNCTION}
local function charge(k, a)
  local capacity = tonumber(ARGV[a])
  local taken = {1, '0', 0, 0}
  if capacity > 0 then taken = take_from_bucket(KEYS[k], capacity, tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), now) end
  local claimed = {}
  if taken[1] == 1 then
    local ttl = tonumber(ARGV[a + 3])
    for i = 1, tonumber(ARGV[a + 4]) do
      if redis.call('SET', KEYS[k + i], '1', 'PX', ttl, 'NX') then claimed[i] = 1 else claimed[i] = 0 end
    end
  end
  return {taken[1], taken[2], taken[3], taken[4], claimed}
end

local replies = {}
local k = 1
local a = 2
for c = 1, tonumber(ARGV[1]) do
  local ok, reply = pcall(charge, k, a)
  if ok then replies[c] = reply else replies[c] = {-1, tostring(type(reply) == 'table' and reply.err or reply)} end
  k = k + 1 + tonumber(ARGV[a + 4])
  a = a + 5
end
return replies
`;
