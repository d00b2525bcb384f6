import { bucketTtlMs, takeFromBucket, type BucketLimit, type BucketState, type TakeResult } from '../token-bucket.ts';

interface StoredBucket {
  state: BucketState;
  expiresAtMs: number;
}

const SWEEP_INTERVAL_MS = 30_000;

/**
 * Token buckets in this process, for MemoryCache.takeTokens. A take is one synchronous step, so concurrent
 * requests cannot interleave. The clock is monotonic: wall-clock jumps neither refill nor drain.
 */
export class MemoryBucketStore {
  readonly #buckets = new Map<string, StoredBucket>();
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_INTERVAL_MS).unref();
  }

  async take(key: string, limit: BucketLimit, cost: number): Promise<TakeResult> {
    return this.takeNow(key, limit, cost);
  }

  /** The take, synchronously: for steps that must not be interleaved with other callers. */
  takeNow(key: string, limit: BucketLimit, cost: number): TakeResult {
    const now = this.#now();
    const stored = this.#buckets.get(key);
    const current = stored !== undefined && stored.expiresAtMs > now ? stored.state : undefined;
    const { state, result } = takeFromBucket(current, now, limit, cost);
    this.#buckets.set(key, { state, expiresAtMs: now + bucketTtlMs(limit) });
    return result;
  }

  /** Buckets held (for tests and debugging). */
  get size(): number {
    return this.#buckets.size;
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#buckets.clear();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, bucket] of this.#buckets) if (bucket.expiresAtMs <= now) this.#buckets.delete(key);
  }
}
