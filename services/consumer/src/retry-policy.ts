/** How often a failing handler runs before its message is dead-lettered, and how long between runs. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/** 5 runs, waiting 200 ms, 400 ms, 800 ms and 1.6 s between them (doubling, capped at 5 s). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 5, initialDelayMs: 200, maxDelayMs: 5_000 };

/** The wait after the given failed attempt (1-based). */
export function delayAfter(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
}
