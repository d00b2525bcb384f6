import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import {
  RateLimitDecisions,
  RedisCache,
  REDIS_NOW_LUA,
  TAKE_FROM_BUCKET_LUA_FUNCTION,
  type Cache,
  type Logger,
  type RateLimitDecision,
  type RateLimiter,
} from '@shop/platform';

/** Keys to set if absent, each with the same time to live. */
export interface Claims {
  readonly keys: readonly string[];
  readonly ttlSeconds: number;
}

/** What one charge decided, and what its claims found. */
export interface ChargeResult {
  /** The rate limit's decision; undefined when the key has no policy or its policy is disabled. */
  readonly decision: RateLimitDecision | undefined;
  /** Per claimed key, true when this charge stored it; empty when the charge was refused (nothing is stored). */
  readonly claimed: readonly boolean[];
  /** Set when the cache failed: the request is let through (fail open) and the claims are in an unknown state. */
  readonly cacheError?: unknown;
}

export interface ChargeAndClaimOptions {
  /** The policies (and, without Redis, the buckets): the same limiter the rateLimit plugin charges. */
  readonly limiter: Pick<RateLimiter, 'policy' | 'take'>;
  readonly cache: Cache;
  readonly metrics: Registry;
  readonly logger: Logger;
  /** As the RateLimiter's: a charge slower than this fails open. */
  readonly timeoutMs?: number;
  /** As the RateLimiter's: bucket keys are `${keyPrefix}:${policy}:${caller}`, so both spend the same buckets. */
  readonly keyPrefix?: string;
}

/**
 * Charges of many requests in one script. Each is the platform's take_from_bucket (the same Lua as every
 * rate limit's), then, only when the charge is allowed, SET NX PX of each of its claimed
 * keys in order: atomic, so a refused request leaves no key behind and two concurrent claims of one key cannot
 * both store it. The time is the Redis server's (TIME), read once for the batch.
 * ARGV[1] the number of charges, then per charge: capacity (0: no policy, no bucket is touched), refill per
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

const CHARGE_AND_CLAIM_SHA = createHash('sha1').update(CHARGE_AND_CLAIM_LUA).digest('hex');
const DEFAULT_TIMEOUT_MS = 250;
/** Charges in one script at most: Redis runs nothing else while a script runs. */
const MAX_BATCH = 128;
/** A placeholder bucket key when there is no bucket to charge (the script does not touch it). */
const NO_BUCKET = 'rate-limit:none';

type ChargeReply = [number, string, number, number, number[]];

interface Pending {
  /** The bucket, then the claimed keys. */
  readonly keys: readonly string[];
  /** Capacity, refill per second, cost, claim time to live in ms. */
  readonly args: readonly [number, number, number, number];
  readonly resolve: (reply: ChargeReply) => void;
  readonly reject: (error: unknown) => void;
}

/** The charges sent together, with one timer for all of them from when the first was queued. */
interface Batch {
  readonly entries: Pending[];
  timer: NodeJS.Timeout | undefined;
  /** Answered, failed or timed out: later replies are ignored. */
  settled: boolean;
}

/**
 * Sends concurrent charges together in one script call (one write to Redis, one read of the replies, one
 * script run), with one call in flight at a time: the charges made while it is out go together in the
 * next, as soon as it is answered; when none is out, those of the current turn of the event loop go at its
 * end. Under load that is one Redis round trip for many requests instead of one each. Every charge is
 * answered or failed within `timeoutMs` of being queued, waiting included (a slow call is given up, and the
 * next one goes). A script Redis does not know (restart, SCRIPT FLUSH, failover) is sent again with EVAL,
 * which caches it.
 */
class ChargeBatcher {
  readonly #client: Redis;
  readonly #timeoutMs: number;
  /** Batches not sent yet, oldest first; charges join the last one. */
  #waiting: Batch[] = [];
  #inFlight: Batch | undefined;

  constructor(client: Redis, timeoutMs: number) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
  }

  run(keys: readonly string[], args: Pending['args']): Promise<ChargeReply> {
    return new Promise((resolve, reject) => {
      let batch = this.#waiting.at(-1);
      if (batch === undefined || batch.entries.length >= MAX_BATCH) {
        const created: Batch = { entries: [], timer: undefined, settled: false };
        created.timer = setTimeout(() => this.#timedOut(created), this.#timeoutMs);
        this.#waiting.push((batch = created));
        if (this.#inFlight === undefined && this.#waiting.length === 1) setImmediate(() => this.#send());
      }
      batch.entries.push({ keys, args, resolve, reject });
    });
  }

  #send(): void {
    if (this.#inFlight !== undefined) return;
    const batch = this.#waiting.shift();
    if (batch === undefined) return;
    this.#inFlight = batch;
    const keys: string[] = [];
    const args: (number | string)[] = [batch.entries.length];
    for (const entry of batch.entries) {
      keys.push(...entry.keys);
      args.push(...entry.args, entry.keys.length - 1);
    }
    const answer = (replies: unknown) =>
      this.#settle(batch, (entry, index) => {
        const reply = (replies as ChargeReply[])[index];
        if (reply === undefined || reply[0] === -1) entry.reject(new Error(`the charge failed in Redis: ${String(reply?.[1])}`));
        else entry.resolve(reply);
      });
    const fail = (error: unknown) => this.#settle(batch, (entry) => entry.reject(error));
    this.#client.evalsha(CHARGE_AND_CLAIM_SHA, keys.length, ...keys, ...args).then(answer, (error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) return fail(error);
      this.#client.eval(CHARGE_AND_CLAIM_LUA, keys.length, ...keys, ...args).then(answer, fail);
    });
  }

  #settle(batch: Batch, answer: (entry: Pending, index: number) => void): void {
    if (!batch.settled) {
      batch.settled = true;
      clearTimeout(batch.timer);
      batch.entries.forEach(answer);
    }
    if (this.#inFlight === batch) {
      this.#inFlight = undefined;
      this.#send();
    }
  }

  #timedOut(batch: Batch): void {
    const waiting = this.#waiting.indexOf(batch);
    if (waiting !== -1) this.#waiting.splice(waiting, 1);
    const error = new Error(`the rate limit store did not answer in ${this.#timeoutMs} ms`);
    this.#settle(batch, (entry) => entry.reject(error));
  }
}

/**
 * Charges a rate-limit bucket and, only when the charge is allowed, claims keys with set-if-absent, in one
 * cache round trip: POST /track spends its `track` token and sets its clicks' repeat keys together.
 *
 * On Redis it is one script (CHARGE_AND_CLAIM_LUA), atomic, run for a batch of concurrent charges at once
 * (ChargeBatcher). In the embedded cache (no CACHE_URL) it is the limiter's take, then the cache's
 * setIfAbsent for each key when allowed: both are in-process, so there is no round trip to save.
 *
 * The decision is the platform RateLimiter's, counted in the same rate_limit_decisions_total: undefined without
 * an enabled policy (the keys are still claimed); a cost above capacity is refused without touching the
 * bucket; a cache that fails or does not answer within the timeout fails open (allowed, `fail_open`, logged
 * once when it starts and once when it ends) and reports `cacheError` for the claims.
 */
export class ChargeAndClaim {
  readonly #limiter: Pick<RateLimiter, 'policy' | 'take'>;
  readonly #cache: Cache;
  readonly #batcher: ChargeBatcher | undefined;
  readonly #decisions: RateLimitDecisions;
  readonly #keyPrefix: string;

  constructor(options: ChargeAndClaimOptions) {
    this.#limiter = options.limiter;
    this.#cache = options.cache;
    this.#batcher = options.cache instanceof RedisCache ? new ChargeBatcher(options.cache.client, options.timeoutMs ?? DEFAULT_TIMEOUT_MS) : undefined;
    this.#decisions = new RateLimitDecisions(options.metrics, options.logger);
    this.#keyPrefix = options.keyPrefix ?? 'rate-limit';
  }

  /** Charges `cost` tokens of the caller's bucket of `policyKey` (none when policyKey is undefined) and claims the keys if allowed. */
  async take(policyKey: string | undefined, caller: string, cost: number, claims: Claims): Promise<ChargeResult> {
    if (this.#batcher === undefined) return this.#takeInProcess(policyKey, caller, cost, claims);
    const found = policyKey === undefined ? undefined : this.#limiter.policy(policyKey);
    const policy = found?.enabled === true ? found : undefined;
    if (policy !== undefined && cost > policy.capacity) return { decision: this.#decisions.overCapacity(policy), claimed: [] };
    if (policy === undefined && claims.keys.length === 0) return { decision: undefined, claimed: [] };

    const bucket = policy === undefined ? NO_BUCKET : `${this.#keyPrefix}:${policy.key}:${caller}`;
    const args = [policy?.capacity ?? 0, policy?.refillPerSecond ?? 0, cost, Math.round(claims.ttlSeconds * 1000)] as const;
    let reply: ChargeReply;
    try {
      reply = await this.#batcher.run([bucket, ...claims.keys], args);
    } catch (error) {
      return { decision: policy === undefined ? undefined : this.#decisions.storeFailed(policy, error), claimed: [], cacheError: error };
    }
    const [allowed, tokens, retryAfterMs, fullInMs, claimed] = reply;
    const stored = claimed.map((value) => value === 1);
    if (policy === undefined) return { decision: undefined, claimed: stored };
    const decision = this.#decisions.taken(policy, { allowed: allowed === 1, tokens: Number(tokens), retryAfterMs, fullInMs });
    return { decision, claimed: stored };
  }

  async #takeInProcess(policyKey: string | undefined, caller: string, cost: number, claims: Claims): Promise<ChargeResult> {
    const decision = policyKey === undefined ? undefined : await this.#limiter.take(policyKey, caller, cost);
    if (decision !== undefined && !decision.allowed) return { decision, claimed: [] };
    try {
      const claimed = await Promise.all(claims.keys.map((key) => this.#cache.setIfAbsent(key, '1', claims.ttlSeconds)));
      return { decision, claimed };
    } catch (error) {
      return { decision, claimed: [], cacheError: error };
    }
  }
}
