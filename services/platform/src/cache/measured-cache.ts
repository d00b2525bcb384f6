import { Counter, type Registry } from 'prom-client';
import type { DependencyMode } from '../health/probe.ts';
import type { BucketCharge, Cache, ChargeAndClaimResult, Claims } from './cache.ts';
import type { BucketLimit, TakeResult } from './token-bucket.ts';

/** hit/miss for get, stored/exists for setIfAbsent, ok for the others; error when the cache failed to answer. */
export type CacheResult = 'hit' | 'miss' | 'stored' | 'exists' | 'ok' | 'error';

type Operation = 'get' | 'set' | 'setIfAbsent' | 'delete' | 'takeTokens' | 'chargeAndClaim';

/**
 * The cache with each operation counted in cache_operations_total{operation,result}: the app's own view
 * of hits, misses and failures, whichever adapter answers (redis_exporter only sees the server).
 */
export class MeasuredCache implements Cache {
  readonly mode: DependencyMode;
  readonly #cache: Cache;
  readonly #counter: Counter<'operation' | 'result'>;
  /** The labelled children, resolved once: /track charges the cache on every request. */
  readonly #children = new Map<string, Counter.Internal>();

  constructor(cache: Cache, registry: Registry) {
    this.mode = cache.mode;
    this.#cache = cache;
    this.#counter = new Counter({
      name: 'cache_operations_total',
      help: 'Cache operations by operation and result: hit/miss (get), stored/exists (setIfAbsent), ok, error (the cache failed)',
      labelNames: ['operation', 'result'],
      registers: [registry],
    });
  }

  ping(): Promise<void> {
    return this.#cache.ping();
  }

  get(key: string): Promise<string | undefined> {
    return this.#count(
      'get',
      () => this.#cache.get(key),
      (value) => (value === undefined ? 'miss' : 'hit'),
    );
  }

  set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    return this.#count(
      'set',
      () => this.#cache.set(key, value, ttlSeconds),
      () => 'ok',
    );
  }

  setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    return this.#count(
      'setIfAbsent',
      () => this.#cache.setIfAbsent(key, value, ttlSeconds),
      (stored) => (stored ? 'stored' : 'exists'),
    );
  }

  delete(key: string): Promise<void> {
    return this.#count(
      'delete',
      () => this.#cache.delete(key),
      () => 'ok',
    );
  }

  takeTokens(key: string, limit: BucketLimit, cost: number): Promise<TakeResult> {
    return this.#count(
      'takeTokens',
      () => this.#cache.takeTokens(key, limit, cost),
      () => 'ok',
    );
  }

  chargeAndClaim(charge: BucketCharge | undefined, claims: Claims): Promise<ChargeAndClaimResult> {
    return this.#count(
      'chargeAndClaim',
      () => this.#cache.chargeAndClaim(charge, claims),
      () => 'ok',
    );
  }

  close(): Promise<void> {
    return this.#cache.close();
  }

  async #count<T>(operation: Operation, call: () => Promise<T>, resultOf: (value: T) => CacheResult): Promise<T> {
    try {
      const value = await call();
      this.#inc(operation, resultOf(value));
      return value;
    } catch (error) {
      this.#inc(operation, 'error');
      throw error;
    }
  }

  #inc(operation: Operation, result: CacheResult): void {
    const key = `${operation} ${result}`;
    let child = this.#children.get(key);
    if (child === undefined) this.#children.set(key, (child = this.#counter.labels(operation, result)));
    child.inc();
  }
}
