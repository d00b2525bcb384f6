import type { Probe } from '../health/probe.ts';
import type { BucketLimit, TakeResult } from './token-bucket.ts';

/** Tokens to take from one bucket: see {@link Cache.takeTokens}. */
export interface BucketCharge {
  readonly key: string;
  readonly limit: BucketLimit;
  readonly cost: number;
}

/** Keys to set if absent, each with the same time to live. */
export interface Claims {
  readonly keys: readonly string[];
  readonly ttlSeconds: number;
}

/** What one {@link Cache.chargeAndClaim} did. */
export interface ChargeAndClaimResult {
  /** The bucket's answer; undefined when there was no bucket to charge. */
  readonly taken: TakeResult | undefined;
  /** Per claimed key, true when this call stored it; empty when the charge was refused (nothing is stored). */
  readonly claimed: readonly boolean[];
}

/**
 * The cache every process shares: Redis-compatible when CACHE_URL is set, in-process otherwise. Each adapter
 * gives the same answers (the contract test runs against both); what Redis does in a Lua script, the
 * in-process cache does in one synchronous step.
 */
export interface Cache extends Probe {
  get(key: string): Promise<string | undefined>;
  /** Stores a value; with ttlSeconds it disappears after that many seconds. */
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Stores only when the key is absent; true when this call stored it. */
  setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /**
   * Takes `cost` tokens from the token bucket at `key`, in one atomic step: refills it for the time
   * elapsed (never above capacity, so idling banks at most one burst), then spends `cost` if there is
   * enough. A missing bucket is a full one; a bucket is forgotten once it would be full again.
   */
  takeTokens(key: string, limit: BucketLimit, cost: number): Promise<TakeResult>;
  /**
   * Takes tokens as {@link takeTokens} (none when `charge` is undefined) and, only when that is allowed,
   * stores each claimed key if absent, in order: one atomic step, so a refused charge leaves no key behind
   * and two concurrent claims of one key cannot both store it. The Redis cache sends the calls made
   * together in one round trip and fails a call it cannot answer in time.
   */
  chargeAndClaim(charge: BucketCharge | undefined, claims: Claims): Promise<ChargeAndClaimResult>;
  close(): Promise<void>;
}
