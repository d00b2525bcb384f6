import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { RedisCache, type Cache, type Logger, type RateLimitDecision, type RateLimiter, type RateLimitPolicy } from '@shop/platform';

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
 * takeFromBucket (platform's token-bucket.ts) as the platform's TAKE_TOKENS_LUA does it, then, only when the
 * charge is allowed, SET NX PX of every claimed key in order: one atomic step, so a refused request leaves no
 * key behind and two concurrent claims of one key cannot both store it.
 * KEYS[1] bucket (unused when ARGV[1] is 0: no policy), KEYS[2..] claimed keys; ARGV capacity, refill per
 * second, cost, claim time to live in ms. Returns {allowed 0|1, tokens, retryMs, fullMs, {stored 0|1 per claim}}.
 */
export const CHARGE_AND_CLAIM_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local capacity = tonumber(ARGV[1])
local allowed = 1
local tokens = 0
local retry = 0
local full = 0
if capacity > 0 then
  local rate_ms = tonumber(ARGV[2]) / 1000
  local cost = tonumber(ARGV[3])
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
  local stored = redis.call('HMGET', KEYS[1], 't', 'ts')
  tokens = tonumber(stored[1])
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
  allowed = 0
  if tokens + 1e-9 >= cost then
    allowed = 1
    tokens = math.max(0, tokens - cost)
  end
  redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'ts', string.format('%.17g', updated))
  redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate_ms) + 1000)
  if allowed == 0 then retry = math.ceil((cost - tokens) / rate_ms) end
  full = math.ceil((capacity - tokens) / rate_ms)
end
local claimed = {}
if allowed == 1 then
  local ttl = tonumber(ARGV[4])
  for i = 2, #KEYS do
    if redis.call('SET', KEYS[i], '1', 'PX', ttl, 'NX') then claimed[i - 1] = 1 else claimed[i - 1] = 0 end
  end
end
return {allowed, string.format('%.17g', tokens), retry, full, claimed}
`;

const CHARGE_AND_CLAIM_SHA = createHash('sha1').update(CHARGE_AND_CLAIM_LUA).digest('hex');
const DEFAULT_TIMEOUT_MS = 250;
const DECISIONS_METRIC = 'rate_limit_decisions_total';
/** A placeholder for KEYS[1] when there is no bucket to charge (the script does not touch it). */
const NO_BUCKET = 'rate-limit:none';

type ScriptReply = [number, string, number, number, number[]];

interface Pending {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  readonly resolve: (reply: ScriptReply) => void;
  readonly reject: (error: unknown) => void;
}

/** The charges sent together, with one timer for all of them from when the first was queued. */
interface Batch {
  readonly entries: Pending[];
  timer: NodeJS.Timeout | undefined;
  /** Answered, failed or timed out: later replies are ignored. */
  settled: boolean;
}

/** The platform RateLimiter's counter (same name, help and labels): whichever registers first, both count into it. */
function decisionsCounter(registry: Registry): Counter<'policy' | 'result'> {
  const existing = registry.getSingleMetric(DECISIONS_METRIC);
  if (existing !== undefined) return existing as Counter<'policy' | 'result'>;
  return new Counter({
    name: DECISIONS_METRIC,
    help: 'Rate limit decisions by policy and result (allowed, limited, fail_open: the bucket store failed and the request was let through)',
    labelNames: ['policy', 'result'],
    registers: [registry],
  });
}

/**
 * Sends the scripts of concurrent charges in one pipeline (one write to Redis, one read of the replies),
 * with one pipeline in flight at a time: the charges made while it is out go together in the next, as
 * soon as it is answered; when none is out, those of the current turn of the event loop go at its end.
 * Under load that is one Redis round trip for many requests instead of one each. Every charge is answered
 * or failed within `timeoutMs` of being queued, waiting included (a slow pipeline is given up, and the next
 * one goes). A script Redis does not know (restart, SCRIPT FLUSH, failover) is sent again with EVAL, which
 * caches it.
 */
class ScriptPipeline {
  readonly #client: Redis;
  readonly #timeoutMs: number;
  #collecting: Batch | undefined;
  #inFlight: Batch | undefined;

  constructor(client: Redis, timeoutMs: number) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
  }

  run(keys: readonly string[], args: readonly (string | number)[]): Promise<ScriptReply> {
    return new Promise((resolve, reject) => {
      let batch = this.#collecting;
      if (batch === undefined) {
        const created: Batch = { entries: [], timer: undefined, settled: false };
        created.timer = setTimeout(() => this.#timedOut(created), this.#timeoutMs);
        this.#collecting = batch = created;
        if (this.#inFlight === undefined) setImmediate(() => this.#send());
      }
      batch.entries.push({ keys, args, resolve, reject });
    });
  }

  #send(): void {
    const batch = this.#collecting;
    if (this.#inFlight !== undefined || batch === undefined) return;
    this.#collecting = undefined;
    this.#inFlight = batch;
    const pipeline = this.#client.pipeline();
    for (const { keys, args } of batch.entries) pipeline.evalsha(CHARGE_AND_CLAIM_SHA, keys.length, ...keys, ...args);
    pipeline.exec().then(
      (results) =>
        this.#settle(batch, (entry, index) => {
          const [error, reply] = results?.[index] ?? [new Error('no reply from the cache'), undefined];
          if (error === null) entry.resolve(reply as ScriptReply);
          else if (error.message.startsWith('NOSCRIPT')) this.#eval(entry);
          else entry.reject(error);
        }),
      (error: unknown) => this.#settle(batch, (entry) => entry.reject(error)),
    );
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
    if (this.#collecting === batch) this.#collecting = undefined;
    const error = new Error(`the rate limit store did not answer in ${this.#timeoutMs} ms`);
    this.#settle(batch, (entry) => entry.reject(error));
  }

  #eval({ keys, args, resolve, reject }: Pending): void {
    this.#client.eval(CHARGE_AND_CLAIM_LUA, keys.length, ...keys, ...args).then((reply) => resolve(reply as ScriptReply), reject);
  }
}

/**
 * Charges a rate-limit bucket and, only when the charge is allowed, claims keys with set-if-absent, in one
 * cache round trip: POST /track spends its `track` token and sets its clicks' repeat keys together.
 *
 * On Redis it is one script (CHARGE_AND_CLAIM_LUA), atomic, batched with the other charges of the same turn
 * of the event loop. In the embedded cache (no CACHE_URL) it is the limiter's take, then the cache's
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
  readonly #scripts: ScriptPipeline | undefined;
  readonly #decisions: Counter<'policy' | 'result'>;
  readonly #logger: Logger;
  readonly #keyPrefix: string;
  #storeDown = false;

  constructor(options: ChargeAndClaimOptions) {
    this.#limiter = options.limiter;
    this.#cache = options.cache;
    this.#scripts = options.cache instanceof RedisCache ? new ScriptPipeline(options.cache.client, options.timeoutMs ?? DEFAULT_TIMEOUT_MS) : undefined;
    this.#decisions = decisionsCounter(options.metrics);
    this.#logger = options.logger;
    this.#keyPrefix = options.keyPrefix ?? 'rate-limit';
  }

  /** Charges `cost` tokens of the caller's bucket of `policyKey` (none when policyKey is undefined) and claims the keys if allowed. */
  async take(policyKey: string | undefined, caller: string, cost: number, claims: Claims): Promise<ChargeResult> {
    if (this.#scripts === undefined) return this.#takeInProcess(policyKey, caller, cost, claims);
    const found = policyKey === undefined ? undefined : this.#limiter.policy(policyKey);
    const policy = found?.enabled === true ? found : undefined;
    if (policy !== undefined && cost > policy.capacity) return { decision: this.#overCapacity(policy), claimed: [] };
    if (policy === undefined && claims.keys.length === 0) return { decision: undefined, claimed: [] };

    const bucket = policy === undefined ? NO_BUCKET : `${this.#keyPrefix}:${policy.key}:${caller}`;
    const args = [policy?.capacity ?? 0, policy?.refillPerSecond ?? 0, cost, Math.round(claims.ttlSeconds * 1000)];
    let reply: ScriptReply;
    try {
      reply = await this.#scripts.run([bucket, ...claims.keys], args);
    } catch (error) {
      if (policy !== undefined && !this.#storeDown) this.#logger.warn({ err: error }, 'rate limit store unavailable: allowing every request until it is back');
      if (policy !== undefined) this.#storeDown = true;
      return { decision: policy === undefined ? undefined : this.#count({ policy, result: 'fail_open', allowed: true }), claimed: [], cacheError: error };
    }
    const [allowed, tokens, retryAfterMs, fullInMs, claimed] = reply;
    const stored = claimed.map((value) => value === 1);
    if (policy === undefined) return { decision: undefined, claimed: stored };
    if (this.#storeDown) this.#logger.info('rate limit store answering again: limiting again');
    this.#storeDown = false;
    const decision = this.#count({
      policy,
      result: allowed === 1 ? 'allowed' : 'limited',
      allowed: allowed === 1,
      remaining: Math.floor(Number(tokens) + 1e-9),
      retryAfterSeconds: Math.ceil(retryAfterMs / 1000),
      resetSeconds: Math.ceil(fullInMs / 1000),
    });
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

  #overCapacity(policy: RateLimitPolicy): RateLimitDecision {
    const fillSeconds = Math.ceil(policy.capacity / policy.refillPerSecond);
    return this.#count({ policy, result: 'limited', allowed: false, remaining: 0, retryAfterSeconds: fillSeconds, resetSeconds: fillSeconds });
  }

  #count(decision: RateLimitDecision): RateLimitDecision {
    this.#decisions.labels(decision.policy.key, decision.result).inc();
    return decision;
  }
}
