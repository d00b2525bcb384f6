import type { Probe } from '../health/probe.ts';

/** The cache every process shares: Redis-compatible when CACHE_URL is set, in-process otherwise. */
export interface Cache extends Probe {
  get(key: string): Promise<string | undefined>;
  /** Stores a value; with ttlSeconds it disappears after that many seconds. */
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Stores only when the key is absent; true when this call stored it. */
  setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
