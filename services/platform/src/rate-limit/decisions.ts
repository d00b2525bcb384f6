import { Counter, type Registry } from 'prom-client';
import type { Logger } from '@shop/runtime';
import type { RateLimitPolicy } from './policy.ts';
import { TOKEN_EPSILON, type TakeResult } from '../cache/token-bucket.ts';

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

const DECISIONS_METRIC = 'rate_limit_decisions_total';

/** rate_limit_decisions_total of the registry: registered once, shared by every limiter that charges into it. */
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
 * Turns what a bucket store answered into decisions, each counted in rate_limit_decisions_total. A store
 * that fails lets the request through (fail_open); that is logged once when the store goes and once
 * when it answers again.
 */
export class RateLimitDecisions {
  readonly #counter: Counter<'policy' | 'result'>;
  readonly #logger: Logger;
  #storeDown = false;

  constructor(metrics: Registry, logger: Logger) {
    this.#counter = decisionsCounter(metrics);
    this.#logger = logger;
  }

  /** A cost above the policy's capacity can never be paid: refused without asking the store. */
  overCapacity(policy: RateLimitPolicy): RateLimitDecision {
    const fillSeconds = Math.ceil(policy.capacity / policy.refillPerSecond);
    return this.#count({
      policy,
      result: 'limited',
      allowed: false,
      remaining: 0,
      retryAfterSeconds: fillSeconds,
      resetSeconds: fillSeconds,
    });
  }

  taken(policy: RateLimitPolicy, taken: TakeResult): RateLimitDecision {
    if (this.#storeDown) this.#logger.info('rate limit store answering again: limiting again');
    this.#storeDown = false;
    return this.#counted(policy, taken);
  }

  #counted(policy: RateLimitPolicy, taken: TakeResult): RateLimitDecision {
    return this.#count({
      policy,
      result: taken.allowed ? 'allowed' : 'limited',
      allowed: taken.allowed,
      remaining: Math.floor(taken.tokens + TOKEN_EPSILON),
      retryAfterSeconds: Math.ceil(taken.retryAfterMs / 1000),
      resetSeconds: Math.ceil(taken.fullInMs / 1000),
    });
  }

  /** What the per-process fallback bucket answered while the store is down (abuse-sensitive policies). */
  takenLocally(policy: RateLimitPolicy, taken: TakeResult, error: unknown): RateLimitDecision {
    this.#storeWentDown(error);
    return this.#counted(policy, taken);
  }

  storeFailed(policy: RateLimitPolicy, error: unknown): RateLimitDecision {
    this.#storeWentDown(error);
    return this.#count({ policy, result: 'fail_open', allowed: true });
  }

  #storeWentDown(error: unknown): void {
    if (!this.#storeDown) {
      this.#logger.warn(
        { err: error },
        'rate limit store unavailable: allowing requests until it is back, except single mutations (graphql:<field> policies), limited per process',
      );
    }
    this.#storeDown = true;
  }

  #count(decision: RateLimitDecision): RateLimitDecision {
    this.#counter.labels(decision.policy.key, decision.result).inc();
    return decision;
  }
}
