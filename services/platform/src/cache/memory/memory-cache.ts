import type { BucketCharge, Cache, ChargeAndClaimResult, Claims } from '../cache.ts';
import type { BucketLimit, TakeResult } from '../token-bucket.ts';
import { MemoryBucketStore } from './memory-bucket-store.ts';

interface Entry {
  readonly value: string;
  readonly expiresAt: number;
}

const SWEEP_INTERVAL_MS = 30_000;

/**
 * The embedded cache: one process, same semantics as the Redis one (TTL, set-if-absent, token buckets,
 * charge and claim). Each operation is one synchronous step, so concurrent callers cannot interleave.
 */
export class MemoryCache implements Cache {
  readonly mode = 'embedded';
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;
  readonly #buckets: MemoryBucketStore;

  /** `now` is the clock of values' TTLs; `bucketClock` the buckets', monotonic so wall-clock jumps neither refill nor drain. */
  constructor(now: () => number = Date.now, bucketClock?: () => number) {
    this.#now = now;
    this.#buckets = new MemoryBucketStore(bucketClock);
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_INTERVAL_MS).unref();
  }

  async ping(): Promise<void> {}

  async get(key: string): Promise<string | undefined> {
    return this.#read(key);
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    this.#write(key, value, ttlSeconds);
  }

  /** Check and write happen in one synchronous step, so concurrent callers cannot interleave. */
  async setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    return this.#setIfAbsent(key, value, ttlSeconds);
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async takeTokens(key: string, limit: BucketLimit, cost: number): Promise<TakeResult> {
    return this.#buckets.takeNow(key, limit, cost);
  }

  async chargeAndClaim(charge: BucketCharge | undefined, claims: Claims): Promise<ChargeAndClaimResult> {
    const taken = charge === undefined ? undefined : this.#buckets.takeNow(charge.key, charge.limit, charge.cost);
    if (taken !== undefined && !taken.allowed) return { taken, claimed: [] };
    return { taken, claimed: claims.keys.map((key) => this.#setIfAbsent(key, '1', claims.ttlSeconds)) };
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#entries.clear();
    await this.#buckets.close();
  }

  #setIfAbsent(key: string, value: string, ttlSeconds: number | undefined): boolean {
    if (this.#read(key) !== undefined) return false;
    this.#write(key, value, ttlSeconds);
    return true;
  }

  #read(key: string): string | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.#now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  #write(key: string, value: string, ttlSeconds: number | undefined): void {
    const expiresAt = ttlSeconds === undefined ? Number.POSITIVE_INFINITY : this.#now() + ttlSeconds * 1000;
    this.#entries.set(key, { value, expiresAt });
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}
