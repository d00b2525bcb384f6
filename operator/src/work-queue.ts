import { backoffDelay, type BackoffPolicy } from './backoff.ts';
import { TokenBucket, type RateLimit } from './rate-limit.ts';

export interface PassOutcome {
  /** Run the key again after this long even if nothing changes (e.g. to poll something not watched). */
  readonly requeueAfterMs?: number;
}

export interface WorkQueueOptions {
  /**
   * One pass for one key. A throw retries the key with exponential backoff. `signal` aborts at the
   * pass deadline: the pass is to give up then (a rejection with the signal's reason).
   */
  readonly handle: (key: string, signal: AbortSignal) => Promise<PassOutcome | undefined>;
  /** Passes of different keys that may run at once. */
  readonly concurrency: number;
  /** How long a pass may run before its signal aborts. */
  readonly passTimeoutMs: number;
  readonly backoff: BackoffPolicy;
  /** Retries and requeues of all keys together come no faster than this; unlimited when undefined. */
  readonly rateLimit?: RateLimit;
  /** In [0, 1): each retry and requeue is delayed by up to JITTER more, so keys failing together spread out. Math.random unless given. */
  readonly random?: () => number;
  readonly onError?: (key: string, error: unknown, retryInMs: number) => void;
}

/** setTimeout's largest delay, about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The largest share of a retry's or requeue's delay added to it. */
export const JITTER = 0.1;

/** A pass that ran past its deadline. */
export class PassTimeoutError extends Error {
  override readonly name = 'PassTimeoutError';
}

/**
 * Keys to process, each by at most one pass at a time. Adding a key that is waiting does nothing;
 * adding a key whose pass is running marks it for exactly one more pass afterwards, so any number of
 * events during a pass coalesce into one.
 */
export class WorkQueue {
  readonly #options: WorkQueueOptions;
  /** A Set keeps insertion order: first in, first out. */
  readonly #waiting = new Set<string>();
  readonly #running = new Map<string, { readonly done: Promise<void>; readonly deadline: number }>();
  readonly #addedWhileRunning = new Set<string>();
  readonly #scheduled = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #failures = new Map<string, number>();
  readonly #bucket: TokenBucket | undefined;
  #stopped = false;

  constructor(options: WorkQueueOptions) {
    this.#options = options;
    this.#bucket = options.rateLimit && new TokenBucket(options.rateLimit);
  }

  add(key: string): void {
    if (this.#stopped) return;
    if (this.#running.has(key)) {
      this.#addedWhileRunning.add(key);
      return;
    }
    this.#waiting.add(key);
    this.#startPasses();
  }

  /** Adds the key after `delayMs`; an earlier pending add of the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#stopped) return;
    if (delayMs <= 0) return this.add(key);
    const at = Date.now() + delayMs;
    const pending = this.#scheduled.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    // A longer timer fires at once (Node treats it as 1 ms); a key due later gets an early pass, which asks again.
    const timer = setTimeout(
      () => {
        this.#scheduled.delete(key);
        this.add(key);
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
    this.#scheduled.set(key, { at, timer });
  }

  /** Keys waiting for a pass (not those running or scheduled for later). */
  depth(): number {
    return this.#waiting.size;
  }

  /** Keys whose pass still runs after its deadline aborted it: a pass that ignores cancellation holds its key. */
  overdue(): string[] {
    const now = Date.now();
    return [...this.#running].filter(([, pass]) => now > pass.deadline).map(([key]) => key);
  }

  /** Takes no more keys, drops those waiting and resolves once the running passes have finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const { timer } of this.#scheduled.values()) clearTimeout(timer);
    this.#scheduled.clear();
    this.#waiting.clear();
    this.#addedWhileRunning.clear();
    await Promise.all([...this.#running.values()].map((pass) => pass.done));
  }

  #startPasses(): void {
    while (!this.#stopped && this.#running.size < this.#options.concurrency) {
      const key = this.#waiting.values().next().value;
      if (key === undefined) return;
      this.#waiting.delete(key);
      // The pass starting now supersedes a retry or requeue scheduled earlier; it schedules its own.
      const pending = this.#scheduled.get(key);
      if (pending) clearTimeout(pending.timer);
      this.#scheduled.delete(key);
      const deadline = Date.now() + this.#options.passTimeoutMs;
      this.#running.set(key, { done: this.#pass(key), deadline });
    }
  }

  async #pass(key: string): Promise<void> {
    const { passTimeoutMs } = this.#options;
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new PassTimeoutError(`the pass did not finish within ${passTimeoutMs / 1000} s`)),
      passTimeoutMs,
    );
    try {
      const outcome = await this.#options.handle(key, deadline.signal);
      this.#failures.delete(key);
      if (outcome?.requeueAfterMs !== undefined) this.addAfter(key, this.#delayed(outcome.requeueAfterMs));
    } catch (error) {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      const retryInMs = this.#delayed(backoffDelay(failures, this.#options.backoff));
      this.#options.onError?.(key, error, retryInMs);
      this.addAfter(key, retryInMs);
    } finally {
      clearTimeout(timer);
      this.#running.delete(key);
      if (this.#addedWhileRunning.delete(key)) this.add(key);
      this.#startPasses();
    }
  }

  /**
   * A retry's or requeue's delay with jitter, and no earlier than the rate limit allows: Shops that
   * fail or poll together spread out instead of coming back at once. 0 (look again now) stays 0.
   */
  #delayed(delayMs: number): number {
    if (delayMs <= 0) return 0;
    const jittered = Math.round(delayMs * (1 + JITTER * (this.#options.random ?? Math.random)()));
    return Math.max(jittered, this.#bucket?.reserve() ?? 0);
  }
}
