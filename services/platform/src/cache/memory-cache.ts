import type { Cache } from './cache.ts';

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
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    const expiresAt = ttlSeconds === undefined ? Number.POSITIVE_INFINITY : this.#now() + ttlSeconds * 1000;
    this.#entries.set(key, { value, expiresAt });
  }

  async setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    if ((await this.get(key)) !== undefined) return false;
    await this.set(key, value, ttlSeconds);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#entries.clear();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}
