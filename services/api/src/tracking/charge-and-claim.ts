import type { Registry } from 'prom-client';
import { RateLimitDecisions, type Cache, type Claims, type Logger, type RateLimitDecision, type RateLimiter } from '@shop/platform';

export type { Claims } from '@shop/platform';

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
  /** The policies: the same limiter the rateLimit plugin charges. */
  readonly limiter: Pick<RateLimiter, 'policy'>;
  /** Its buckets are the limiter's (the cache's takeTokens), so both spend the same ones. */
  readonly cache: Cache;
  readonly metrics: Registry;
  readonly logger: Logger;
  /** As the RateLimiter's: bucket keys are `${keyPrefix}:${policy}:${caller}`, so both spend the same buckets. */
  readonly keyPrefix?: string;
}

/**
 * Charges a rate-limit bucket and, only when the charge is allowed, claims keys with set-if-absent, in one
 * cache round trip: POST /track spends its `track` token and sets its clicks' repeat keys together
 * (Cache.chargeAndClaim: one script on Redis, sent for a batch of concurrent charges at once; one
 * synchronous step in the in-process cache).
 *
 * The decision is the platform RateLimiter's, counted in the same rate_limit_decisions_total: undefined without
 * an enabled policy (the keys are still claimed); a cost above capacity is refused without touching the
 * bucket; a cache that fails or does not answer in time (250 ms on Redis) fails open (allowed, `fail_open`,
 * logged once when it starts and once when it ends) and reports `cacheError` for the claims.
 */
export class ChargeAndClaim {
  readonly #limiter: Pick<RateLimiter, 'policy'>;
  readonly #cache: Cache;
  readonly #decisions: RateLimitDecisions;
  readonly #keyPrefix: string;

  constructor(options: ChargeAndClaimOptions) {
    this.#limiter = options.limiter;
    this.#cache = options.cache;
    this.#decisions = new RateLimitDecisions(options.metrics, options.logger);
    this.#keyPrefix = options.keyPrefix ?? 'rate-limit';
  }

  /** Charges `cost` tokens of the caller's bucket of `policyKey` (none when policyKey is undefined) and claims the keys if allowed. */
  async take(policyKey: string | undefined, caller: string, cost: number, claims: Claims): Promise<ChargeResult> {
    const found = policyKey === undefined ? undefined : this.#limiter.policy(policyKey);
    const policy = found?.enabled === true ? found : undefined;
    if (policy !== undefined && cost > policy.capacity) return { decision: this.#decisions.overCapacity(policy), claimed: [] };
    if (policy === undefined && claims.keys.length === 0) return { decision: undefined, claimed: [] };

    const bucket =
      policy === undefined
        ? undefined
        : {
            key: `${this.#keyPrefix}:${policy.key}:${caller}`,
            limit: { capacity: policy.capacity, refillPerSecond: policy.refillPerSecond },
            cost,
          };
    try {
      const { taken, claimed } = await this.#cache.chargeAndClaim(bucket, claims);
      return { decision: policy === undefined || taken === undefined ? undefined : this.#decisions.taken(policy, taken), claimed };
    } catch (error) {
      return { decision: policy === undefined ? undefined : this.#decisions.storeFailed(policy, error), claimed: [], cacheError: error };
    }
  }
}
