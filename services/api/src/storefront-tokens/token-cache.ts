import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { type Tx } from '@shop/domain/kernel';
import {
  activeStorefrontTokens,
  recordStorefrontTokenUse,
  storefrontTokenHash,
  LAST_USED_PRECISION_MS,
} from '@shop/domain/storefront-tokens';

/** How long a process trusts what it read of storefront_tokens: a revocation elsewhere applies within this. */
const TOKEN_CACHE_TTL_MS = 10_000;
/** An unknown token reloads the table at most this often (waiting for that), so made-up tokens cannot load the database. */
const UNKNOWN_TOKEN_RELOAD_MS = 1_000;

/** A token this process accepts. */
export interface AcceptedToken {
  readonly id: bigint;
  /** Its buckets' caller: `storefront-token:` and a prefix of its SHA-256, unique across shops that share a cache, and no secret. */
  readonly bucketKey: string;
}

/**
 * The storefront access tokens this process accepts, by their SHA-256: the whole (small) set of tokens
 * not revoked, read again every TOKEN_CACHE_TTL_MS (a known token does not wait for that read: it is
 * answered from the last one), and when a token is not in it (one created a moment ago on another
 * process), at most once a second: an unknown token waits for that read before its 401. Checking a
 * known token is a hash and a map lookup. Uses are written
 * to last_used_at at most once a minute per token, after the request, never holding it up.
 */
export class StorefrontTokens {
  readonly #db: Tx;
  readonly #logger: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  #byHash = new Map<string, bigint>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | undefined;
  /** Bumped by refresh() and forget(): a load begun before does not bring back what they dropped. */
  #generation = 0;
  #failing = false;
  /** Whether a load ever succeeded (refresh() resets #loadedAt, not this). */
  #everRead = false;
  readonly #written = new Map<bigint, number>();
  readonly #writes = new Set<Promise<void>>();

  readonly #ttlMs: number;
  readonly #unknownReloadMs: number;

  /** The intervals are TOKEN_CACHE_TTL_MS and a second unless given (tests shorten them). */
  constructor(db: Tx, logger: Pick<FastifyBaseLogger, 'info' | 'warn'>, intervals: { ttlMs?: number; unknownReloadMs?: number } = {}) {
    this.#db = db;
    this.#logger = logger;
    this.#ttlMs = intervals.ttlMs ?? TOKEN_CACHE_TTL_MS;
    this.#unknownReloadMs = intervals.unknownReloadMs ?? UNKNOWN_TOKEN_RELOAD_MS;
  }

  /** The token, when it is one this process accepts; undefined when it is no token, unknown or revoked. */
  async verify(token: string): Promise<AcceptedToken | undefined> {
    const hash = storefrontTokenHash(token);
    if (hash === undefined) return undefined;
    const age = performance.now() - this.#loadedAt;
    const known = this.#byHash.has(hash);
    // A known token past the TTL is answered from what was read while the table is read again behind it:
    // every TTL one check would otherwise wait for the database, with every check arriving meanwhile.
    if (age >= this.#ttlMs && known) this.#reload(0).catch(() => undefined);
    else if (age >= this.#ttlMs) await this.#reload(0);
    else if (!known) await this.#reload(this.#unknownReloadMs - age);
    const id = this.#byHash.get(hash);
    if (id === undefined) return undefined;
    this.#recordUse(id);
    return { id, bucketKey: `storefront-token:${hash.slice(0, 16)}` };
  }

  /** Reads the table again at the next check: a token created in this process is accepted at its first request. */
  refresh(): void {
    this.#generation += 1;
    this.#loading = undefined;
    this.#loadedAt = Number.NEGATIVE_INFINITY;
  }

  /** Stops accepting a token in this process at once (a revocation made here); the others follow within the TTL. */
  forget(id: bigint): void {
    this.refresh();
    this.#byHash = new Map([...this.#byHash].filter(([, known]) => known !== id));
  }

  /** Waits for the last-used writes under way. */
  async close(): Promise<void> {
    await Promise.all(this.#writes);
  }

  /** One load at a time, begun `delayMs` from now; checks that arrive meanwhile wait for the same one. */
  #reload(delayMs: number): Promise<void> {
    if (this.#loading !== undefined) return this.#loading;
    const generation = this.#generation;
    const loading: Promise<void> = (delayMs > 0 ? sleep(delayMs) : Promise.resolve())
      .then(() => this.#load(generation))
      .finally(() => {
        // refresh() may have started another load meanwhile: leave that one.
        if (this.#loading === loading) this.#loading = undefined;
      });
    this.#loading = loading;
    return loading;
  }

  async #load(generation: number): Promise<void> {
    try {
      const rows = await activeStorefrontTokens(this.#db);
      if (generation !== this.#generation) return;
      this.#byHash = new Map(rows.map((row) => [row.tokenHash, row.id]));
      this.#loadedAt = performance.now();
      this.#everRead = true;
      if (this.#failing) this.#logger.info('storefront tokens readable again');
      this.#failing = false;
    } catch (error) {
      // Never read: nothing can be checked. Read before: the tokens last read stay accepted (nobody can revoke one
      // in a database that cannot be read), and the next request tries again a second later.
      if (!this.#everRead) throw error;
      if (!this.#failing) this.#logger.warn({ err: error }, 'storefront tokens unreadable: accepting the ones last read');
      this.#failing = true;
      this.#loadedAt = performance.now() - this.#ttlMs + this.#unknownReloadMs;
    }
  }

  #recordUse(id: bigint): void {
    const now = Date.now();
    if (now - (this.#written.get(id) ?? Number.NEGATIVE_INFINITY) < LAST_USED_PRECISION_MS) return;
    this.#written.set(id, now);
    const write = recordStorefrontTokenUse(this.#db, id, new Date(now))
      .catch((error: unknown) =>
        this.#logger.warn({ err: error, storefrontTokenId: id.toString() }, 'could not record a storefront token use'),
      )
      .finally(() => this.#writes.delete(write));
    this.#writes.add(write);
  }
}
