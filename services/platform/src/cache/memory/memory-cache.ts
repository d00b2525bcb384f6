import type { Cache } from '../cache.ts';

interface Entry {
  readonly value: string;
  readonly expiresAt: number;
}

const SWEEP_INTERVAL_MS = 30_000;

/** The embedded cache: one process, same semantics as the Redis one (TTL, set-if-absent). */
export class MemoryCache implements Cache {
  readonly mode = 'embedded';
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(now: () => number = Date.now) {
    this.#now = now;
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
    if (this.#read(key) !== undefined) return false;
    this.#write(key, value, ttlSeconds);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#entries.clear();
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
