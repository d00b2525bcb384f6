export interface BackoffPolicy {
  /** Delay after the first failure. */
  readonly initialMs: number;
  /** The delay doubles with each further failure up to this. */
  readonly maxMs: number;
}

export function backoffDelay(failures: number, policy: BackoffPolicy): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(policy.initialMs * 2 ** exponent, policy.maxMs);
}
