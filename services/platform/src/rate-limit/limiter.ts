import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../logging/logger.ts';
import { withTimeout } from '../time/with-timeout.ts';
import type { TokenBucketStore } from './bucket-store.ts';
import type { RateLimitPolicy, RateLimitPolicyLookup } from './policy.ts';

export type RateLimitResult = 'allowed' | 'limited' | 'fail_open';

/** What one take decided. `remaining`, `retryAfterSeconds` and `resetSeconds` are absent when the store failed. */
export interface RateLimitDecision {
  readonly policy: RateLimitPolicy;
  readonly result: RateLimitResult;
  /** False only when limited: a failing store allows (fails open). */
  readonly allowed: boolean;
  /** Whole tokens left. */
  readonly remaining?: number;
  /** Seconds (rounded up) until this request would be allowed; 0 when allowed. */
  readonly retryAfterSeconds?: number;
  /** Seconds (rounded up) until the bucket is full again. */
  readonly resetSeconds?: number;
}

export interface RateLimiterOptions {
  readonly store: TokenBucketStore;
  readonly policies: RateLimitPolicyLookup;
  readonly metrics: Registry;
  readonly logger: Logger;
  /** A take slower than this fails open, so a hung cache cannot hold requests. */
  readonly timeoutMs?: number;
  /** Prefix of the bucket keys in the store. */
  readonly keyPrefix?: string;
}

const DEFAULT_TIMEOUT_MS = 250;
const DECISIONS_METRIC = 'rate_limit_decisions_total';

/** rate_limit_decisions_total of the registry: registered once, shared by every limiter that charges into it. */
export function rateLimitDecisionsCounter(registry: Registry): Counter<'policy' | 'result'> {
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
 * Token buckets per (policy, caller). Decides, counts every decision in rate_limit_decisions_total, and
 * fails open when the store (the cache) is down or slow: the request is allowed, counted as fail_open, and
 * the outage is logged once when it starts and once when it ends.
 */
export class RateLimiter {
  readonly #store: TokenBucketStore;
  readonly #policies: RateLimitPolicyLookup;
  readonly #logger: Logger;
  readonly #decisions: Counter<'policy' | 'result'>;
  readonly #timeoutMs: number;
  readonly #keyPrefix: string;
  #storeDown = false;

  constructor(options: RateLimiterOptions) {
    this.#store = options.store;
    this.#policies = options.policies;
    this.#logger = options.logger;
    this.#decisions = rateLimitDecisionsCounter(options.metrics);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#keyPrefix = options.keyPrefix ?? 'rate-limit';
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
    if (cost > policy.capacity) {
      const fillSeconds = Math.ceil(policy.capacity / policy.refillPerSecond);
      return this.#count({ policy, result: 'limited', allowed: false, remaining: 0, retryAfterSeconds: fillSeconds, resetSeconds: fillSeconds });
    }
    const key = `${this.#keyPrefix}:${policy.key}:${caller}`;
    const limit = { capacity: policy.capacity, refillPerSecond: policy.refillPerSecond };
    try {
      const taken = await withTimeout(this.#store.take(key, limit, cost), this.#timeoutMs, `the rate limit store did not answer in ${this.#timeoutMs} ms`);
      if (this.#storeDown) this.#logger.info('rate limit store answering again: limiting again');
      this.#storeDown = false;
      return this.#count({
        policy,
        result: taken.allowed ? 'allowed' : 'limited',
        allowed: taken.allowed,
        remaining: Math.floor(taken.tokens + 1e-9),
        retryAfterSeconds: Math.ceil(taken.retryAfterMs / 1000),
        resetSeconds: Math.ceil(taken.fullInMs / 1000),
      });
    } catch (error) {
      if (!this.#storeDown) this.#logger.warn({ err: error }, 'rate limit store unavailable: allowing every request until it is back');
      this.#storeDown = true;
      return this.#count({ policy, result: 'fail_open', allowed: true });
    }
  }

  #count(decision: RateLimitDecision): RateLimitDecision {
    this.#decisions.labels(decision.policy.key, decision.result).inc();
    return decision;
  }
}
