import type { Registry } from 'prom-client';
import type { Logger } from '@shop/runtime';
import { withTimeout } from '../time/with-timeout.ts';
import type { TokenBucketStore } from './bucket-store.ts';
import { RateLimitDecisions, type RateLimitDecision } from './decisions.ts';
import { guardsAbuse, type RateLimitPolicy, type RateLimitPolicyLookup } from './policy.ts';

export interface RateLimiterOptions {
  readonly store: TokenBucketStore;
  readonly policies: RateLimitPolicyLookup;
  readonly metrics: Registry;
  readonly logger: Logger;
  /** A take slower than this fails open, so a hung cache cannot hold requests. */
  readonly timeoutMs?: number;
  /** Prefix of the bucket keys in the store. */
  readonly keyPrefix?: string;
  /** Buckets of this process, for the abuse-sensitive policies (guardsAbuse) while the store is down. */
  readonly fallback?: TokenBucketStore;
}

const DEFAULT_TIMEOUT_MS = 250;

/**
 * Token buckets per (policy, caller). Decides, counts every decision in rate_limit_decisions_total, and
 * fails open when the store (the cache) is down or slow: the request is allowed, counted as fail_open, and
 * the outage is logged once when it starts and once when it ends. The policies of single mutations
 * (guardsAbuse) take from the fallback's per-process buckets instead, when there is one.
 */
export class RateLimiter {
  readonly #store: TokenBucketStore;
  readonly #policies: RateLimitPolicyLookup;
  readonly #decisions: RateLimitDecisions;
  readonly #timeoutMs: number;
  readonly #keyPrefix: string;
  readonly #fallback: TokenBucketStore | undefined;

  constructor(options: RateLimiterOptions) {
    this.#store = options.store;
    this.#policies = options.policies;
    this.#decisions = new RateLimitDecisions(options.metrics, options.logger);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#keyPrefix = options.keyPrefix ?? 'rate-limit';
    this.#fallback = options.fallback;
  }

  /** The policy in force for a key, enabled or not; undefined when the key has none. */
  policy(key: string): RateLimitPolicy | undefined {
    return this.#policies.get(key);
  }

  /**
   * Takes `cost` tokens from the caller's bucket of the policy. Undefined when the key has no policy or
   * its policy is disabled: nothing is limited. A cost above the policy's capacity can never be paid and
   * is refused without touching the bucket.
   */
  async take(policyKey: string, caller: string, cost = 1): Promise<RateLimitDecision | undefined> {
    const policy = this.#policies.get(policyKey);
    if (policy === undefined || !policy.enabled) return undefined;
    if (cost > policy.capacity) return this.#decisions.overCapacity(policy);
    const key = `${this.#keyPrefix}:${policy.key}:${caller}`;
    const limit = { capacity: policy.capacity, refillPerSecond: policy.refillPerSecond };
    try {
      const taken = await withTimeout(
        this.#store.take(key, limit, cost),
        this.#timeoutMs,
        `the rate limit store did not answer in ${this.#timeoutMs} ms`,
      );
      return this.#decisions.taken(policy, taken);
    } catch (error) {
      if (this.#fallback === undefined || !guardsAbuse(policy)) return this.#decisions.storeFailed(policy, error);
      return this.#decisions.takenLocally(policy, await this.#fallback.take(key, limit, cost), error);
    }
  }
}
