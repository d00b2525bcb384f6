/** The stored state of one bucket. */
export interface BucketState {
  readonly tokens: number;
  /** When `tokens` was last brought up to date, in milliseconds of the store's clock. */
  readonly updatedAtMs: number;
}

export interface BucketLimit {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

export interface TakeResult {
  readonly allowed: boolean;
  /** Tokens left after this take (fractional: the bucket refills continuously). */
  readonly tokens: number;
  /** Milliseconds until `cost` tokens are there again; 0 when allowed. */
  readonly retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  readonly fullInMs: number;
}

/** Absorbs floating point error so that e.g. 100 ms at 10/s yields a whole token. */
export const TOKEN_EPSILON = 1e-9;

/**
 * One take from a bucket, as the Lua in redis/bucket-scripts.ts does it: refill for the time elapsed
 * (never above capacity, so idling does not bank more than one burst), then spend `cost` if there is enough.
 * A clock that went backwards refills nothing. A missing bucket is a full one.
 */
export function takeFromBucket(
  state: BucketState | undefined,
  nowMs: number,
  limit: BucketLimit,
  cost: number,
): { state: BucketState; result: TakeResult } {
  const { capacity, refillPerSecond } = limit;
  const ratePerMs = refillPerSecond / 1000;
  let tokens = capacity;
  let updatedAtMs = nowMs;
  if (state !== undefined) {
    const elapsedMs = Math.max(0, nowMs - state.updatedAtMs);
    tokens = Math.min(capacity, state.tokens + elapsedMs * ratePerMs);
    updatedAtMs = Math.max(state.updatedAtMs, nowMs);
  }
  const allowed = tokens + TOKEN_EPSILON >= cost;
  if (allowed) tokens = Math.max(0, tokens - cost);
  const retryAfterMs = allowed ? 0 : Math.ceil((cost - tokens) / ratePerMs);
  const fullInMs = Math.ceil((capacity - tokens) / ratePerMs);
  return { state: { tokens, updatedAtMs }, result: { allowed, tokens, retryAfterMs, fullInMs } };
}

/** How long a bucket must be kept: after it would be full again, a missing bucket means the same. */
export function bucketTtlMs(limit: BucketLimit): number {
  return Math.ceil((limit.capacity / limit.refillPerSecond) * 1000) + 1000;
}
