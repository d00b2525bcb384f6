import type { Logger } from '@shop/platform';
import type { TrackingMetrics } from './tracking-metrics.ts';

export interface EventBufferSettings {
  /** Events held at most: accepted and unwritten, plus those of requests being prepared. */
  readonly capacity: number;
  /** A batch this large is written at once; it is also the most rows one INSERT carries. */
  readonly batchSize: number;
  /** The longest an accepted event waits before its batch is written (while the database keeps up). */
  readonly flushIntervalMs: number;
  /** Backoff ceiling between attempts while the database fails. */
  readonly maxRetryDelayMs: number;
  /** How long close() keeps trying to write what is left. */
  readonly closeTimeoutMs: number;
}

export const DEFAULT_BUFFER_SETTINGS: EventBufferSettings = {
  capacity: 10_000,
  batchSize: 500,
  flushIntervalMs: 200,
  maxRetryDelayMs: 5_000,
  closeTimeoutMs: 5_000,
};

export interface EventBufferOptions<T> {
  /** Writes one batch in one statement; throws when nothing was written. */
  readonly write: (rows: readonly T[]) => Promise<unknown>;
  /** True when the database refused the rows themselves (a constraint, bad data): retrying cannot help. */
  readonly isRefusal: (error: unknown) => boolean;
  readonly settings?: Partial<EventBufferSettings>;
  readonly metrics: TrackingMetrics;
  readonly logger: Logger;
}

/** Room for a request's events, taken before the request does anything slow, so the bound holds. */
export interface Reservation<T> {
  /** Queues the events (at most as many as reserved). */
  commit(rows: readonly T[]): void;
  /** Gives the room back (the request failed before it had events to queue). */
  release(): void;
}

export type Admission<T> =
  | { readonly ok: true; readonly reservation: Reservation<T> }
  | { readonly ok: false; readonly reason: 'buffer_full' | 'shutting_down'; readonly retryAfterSeconds: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A bounded in-memory queue of accepted events, written in batches by one writer: a batch goes as soon
 * as `batchSize` events wait, otherwise when the oldest waiting event has waited `flushIntervalMs`.
 * When the database fails, the batch goes back to the front and is retried with backoff; meanwhile
 * the queue fills and admit() refuses (the api answers 503 with Retry-After). Rows the database
 * refuses outright are retried one by one so only the refused ones are dropped (and counted).
 *
 * What an accepted event can be lost to: a hard crash (SIGKILL, OOM, power) loses every event in the
 * queue, at most `capacity` events and normally those of the last `flushIntervalMs`; a close() whose
 * writes keep failing for `closeTimeoutMs` drops what is left, counted and logged.
 */
export class EventBuffer<T> {
  readonly #write: (rows: readonly T[]) => Promise<unknown>;
  readonly #isRefusal: (error: unknown) => boolean;
  readonly #settings: EventBufferSettings;
  readonly #metrics: TrackingMetrics;
  readonly #logger: Logger;

  #queue: T[] = [];
  /** When the oldest queued event was queued (or earlier): the flush deadline counts from it. */
  #oldestAt = 0;
  #reserved = 0;
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerDue = 0;
  #flushing: Promise<void> | undefined;
  #failures = 0;
  #retryAt = 0;
  #closing: Promise<void> | undefined;
  #closed = false;

  constructor(options: EventBufferOptions<T>) {
    this.#write = options.write;
    this.#isRefusal = options.isRefusal;
    this.#settings = { ...DEFAULT_BUFFER_SETTINGS, ...options.settings };
    this.#metrics = options.metrics;
    this.#logger = options.logger;
  }

  /** Accepted events not yet written (queued or being written). */
  get size(): number {
    return this.#queue.length + this.#inFlight;
  }

  get settings(): EventBufferSettings {
    return this.#settings;
  }

  /** Takes room for `count` events, or says why there is none. */
  admit(count: number): Admission<T> {
    if (this.#closing !== undefined) return { ok: false, reason: 'shutting_down', retryAfterSeconds: 1 };
    if (this.size + this.#reserved + count > this.#settings.capacity) {
      const retryAfterSeconds = Math.max(1, Math.ceil((this.#retryAt - Date.now()) / 1000));
      return { ok: false, reason: 'buffer_full', retryAfterSeconds };
    }
    this.#reserved += count;
    let settled = false;
    const settle = () => {
      if (settled) throw new Error('a reservation is committed or released once');
      settled = true;
      this.#reserved -= count;
    };
    return {
      ok: true,
      reservation: {
        commit: (rows) => {
          settle();
          if (rows.length > count) throw new Error(`reserved room for ${count} events, got ${rows.length}`);
          this.#enqueue(rows);
        },
        release: () => {
          if (!settled) settle();
        },
      },
    };
  }

  /** Writes everything queued now (tests and shutdown); resolves when the queue is empty or a write failed. */
  async flush(): Promise<void> {
    await this.#flushing;
    while (this.#queue.length > 0) {
      if (!(await this.#writeBatch())) return;
    }
  }

  /**
   * Refuses new events, waits for the requests that hold room, then writes what is left, retrying
   * failures until `closeTimeoutMs`; what still is not written then is dropped, counted and logged.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const deadline = Date.now() + this.#settings.closeTimeoutMs;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#reserved > 0 && Date.now() < deadline) await sleep(5);
    await this.#flushing;
    while (this.#queue.length > 0 && Date.now() < deadline) {
      if (!(await this.#writeBatch())) await sleep(Math.min(this.#delay(), Math.max(0, deadline - Date.now())));
    }
    this.#closed = true;
    this.#dropLeftovers();
  }

  #dropLeftovers(): void {
    const left = this.#queue.length;
    if (left === 0) return;
    this.#queue = [];
    this.#metrics.dropped.inc({ reason: 'shutdown_timeout' }, left);
    this.#metrics.bufferSize.set(this.size);
    this.#logger.error({ dropped: left }, `stopping: ${left} tracking events could not be written in time and are lost`);
  }

  #enqueue(rows: readonly T[]): void {
    if (rows.length === 0) return;
    if (this.#queue.length === 0) this.#oldestAt = Date.now();
    this.#queue.push(...rows);
    this.#metrics.bufferSize.set(this.size);
    if (this.#closed) this.#dropLeftovers();
    else if (this.#closing === undefined) this.#schedule();
  }

  /** Starts a flush now when a full batch waits, else arms the timer for the oldest event's deadline. */
  #schedule(): void {
    if (this.#flushing !== undefined || this.#queue.length === 0) return;
    const now = Date.now();
    const due = Math.max(this.#oldestAt + this.#settings.flushIntervalMs, this.#retryAt);
    if ((this.#queue.length >= this.#settings.batchSize && now >= this.#retryAt) || now >= due) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#flushing = this.#flushDue().finally(() => {
        this.#flushing = undefined;
        if (this.#closing === undefined) this.#schedule();
      });
      return;
    }
    if (this.#timer !== undefined && this.#timerDue <= due) return;
    clearTimeout(this.#timer);
    this.#timerDue = due;
    // Unreferenced: the HTTP server keeps a serving process alive, and close() writes what waits.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#schedule();
    }, due - now).unref();
  }

  /** Writes full batches back to back, and one partial batch whose time has come. */
  async #flushDue(): Promise<void> {
    while (this.#queue.length > 0) {
      const full = this.#queue.length >= this.#settings.batchSize;
      const due = Date.now() >= this.#oldestAt + this.#settings.flushIntervalMs;
      if (!full && !due) return;
      if (!(await this.#writeBatch())) return;
    }
  }

  /** One INSERT of up to batchSize events; false when the database failed and the events wait for a retry. */
  async #writeBatch(): Promise<boolean> {
    const batch = this.#queue.splice(0, this.#settings.batchSize);
    const remainingOldest = this.#oldestAt;
    this.#inFlight += batch.length;
    const started = performance.now();
    try {
      await this.#write(batch);
      this.#metrics.flushDuration.observe({ result: 'ok' }, (performance.now() - started) / 1000);
      this.#written(batch.length);
      return true;
    } catch (error) {
      this.#metrics.flushDuration.observe({ result: 'failed' }, (performance.now() - started) / 1000);
      if (this.#isRefusal(error)) return await this.#writeOneByOne(batch);
      this.#requeue(batch, error);
      return false;
    } finally {
      this.#inFlight -= batch.length;
      // What is left was queued after the batch: it has waited no longer than the batch's oldest.
      if (this.#queue.length > 0) this.#oldestAt = Math.max(this.#oldestAt, remainingOldest);
      this.#metrics.bufferSize.set(this.size);
    }
  }

  /** After a refused batch: each row alone, so one bad row costs only itself. */
  async #writeOneByOne(batch: readonly T[]): Promise<boolean> {
    for (const [index, row] of batch.entries()) {
      try {
        await this.#write([row]);
        this.#written(1);
      } catch (error) {
        if (!this.#isRefusal(error)) {
          this.#requeue(batch.slice(index), error);
          return false;
        }
        this.#metrics.dropped.inc({ reason: 'refused_by_database' });
        this.#logger.error({ err: error }, 'the database refused a tracking event; it is dropped');
      }
    }
    return true;
  }

  #written(count: number): void {
    this.#metrics.written.inc(count);
    if (this.#failures > 0) this.#logger.info({ failures: this.#failures }, 'tracking events are being written again');
    this.#failures = 0;
    this.#retryAt = 0;
  }

  #requeue(batch: readonly T[], error: unknown): void {
    this.#queue.unshift(...batch);
    this.#oldestAt = 0;
    this.#failures += 1;
    this.#retryAt = Date.now() + this.#delay();
    // The first failure of a streak is a warning; later ones repeat it at most every few attempts.
    if (this.#failures === 1 || this.#failures % 10 === 0) {
      this.#logger.warn(
        { err: error, queued: this.size, failures: this.#failures },
        'writing tracking events failed; they stay queued and are retried',
      );
    }
  }

  #delay(): number {
    return Math.min(this.#settings.flushIntervalMs * 2 ** Math.max(0, this.#failures - 1), this.#settings.maxRetryDelayMs);
  }
}
