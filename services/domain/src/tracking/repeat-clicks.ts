import { hash } from 'node:crypto';
import type { Cache } from '@shop/platform';
import type { SqlClient, TrackedEntityType } from './tracking-events.ts';

/** Who clicked what: the session always, the user when the beacon carried a valid token. */
export interface Click {
  readonly entityType: TrackedEntityType;
  readonly entityId: bigint;
  readonly sessionId: string;
  readonly userId: bigint | null;
}

export interface RepeatClicksOptions {
  readonly cache: Cache;
  readonly db: SqlClient;
  /** How long the cache remembers a first click; after that the database answers. Default a day. */
  readonly rememberSeconds?: number;
  /** Told when the cache failed and the database alone decided (not safe against concurrent first clicks). */
  readonly onCacheError?: (error: unknown) => void;
}

const DEFAULT_REMEMBER_SECONDS = 24 * 60 * 60;

/** The cache's part of is_repeat: `repeat` when a key was taken, else `checkEarlierClick` for the database. */
export interface CacheDecision {
  readonly repeat: boolean;
  readonly checkEarlierClick: boolean;
}

const REPEAT: CacheDecision = { repeat: true, checkEarlierClick: false };
const CHECK_EARLIER_CLICK: CacheDecision = { repeat: false, checkEarlierClick: true };

const EARLIER_CLICK_SQL = `
  SELECT EXISTS (SELECT 1 FROM tracking_events
                  WHERE event_type = 'click' AND entity_type = $1 AND entity_id = $2
                    AND (session_id = $3 OR user_id = $4)) AS clicked`;

/** A short, fixed-length key: session ids run to 255 characters and the cache holds one key per first click. */
function keyOf(kind: 's' | 'u', who: string, click: Click): string {
  const digest = hash('sha256', `${click.entityType}\u0000${click.entityId}\u0000${kind}\u0000${who}`, 'base64url');
  return `tracking:click:${digest.slice(0, 24)}`;
}

/**
 * Decides is_repeat for a click: true when the same session, or the same signed-in user, clicked the
 * same entity before.
 *
 * The cache's atomic set-if-absent is the arbiter: one key per (entity, session) and per (entity,
 * user). Of concurrent first clicks exactly one stores every key it needs and is the first; the others
 * find a key taken and are repeats, even while the first is still in the api's write buffer. A click
 * that stored its keys is then checked against tracking_events, because the cache may have forgotten
 * an older click (restart, eviction, the key's expiry): the database is the lasting record, the cache
 * the fast and race-free one. POST /track asks only the cache and leaves the database check to the
 * batch INSERT, so no request waits for PostgreSQL: it sets a click's keys ({@link RepeatClicks.keysOf})
 * in the same cache round trip as its rate-limit charge and passes the answers to {@link RepeatClicks.decide}.
 */
export class RepeatClicks {
  readonly #cache: Cache;
  readonly #db: SqlClient;
  /** How long a key stays in the cache. */
  readonly rememberSeconds: number;
  readonly #onCacheError: (error: unknown) => void;

  constructor(options: RepeatClicksOptions) {
    this.#cache = options.cache;
    this.#db = options.db;
    this.rememberSeconds = options.rememberSeconds ?? DEFAULT_REMEMBER_SECONDS;
    this.#onCacheError = options.onCacheError ?? (() => {});
  }

  async isRepeat(click: Click): Promise<boolean> {
    const decision = await this.fromCache(click);
    return decision.repeat || (decision.checkEarlierClick && (await this.#clickedBefore(click)));
  }

  /**
   * The cache's part of the decision, without the database: `repeat` when a key was already taken;
   * otherwise `checkEarlierClick` (always, as the cache may have forgotten or failed), for the caller to
   * check tracking_events itself, e.g. in the batch INSERT (insertTrackingEvents' checkEarlierClick).
   */
  async fromCache(click: Click): Promise<CacheDecision> {
    const keys = this.keysOf(click);
    try {
      // Every key is set, even when one is already taken, so the session and the user are both remembered.
      return this.decide(await Promise.all(keys.map((key) => this.#cache.setIfAbsent(key, '1', this.rememberSeconds))));
    } catch (error) {
      return this.cacheFailed(error);
    }
  }

  /**
   * The keys a click sets, each with set-if-absent and a time to live of {@link rememberSeconds}: one for
   * (entity, session) and, when signed in, one for (entity, user). For a caller that sets them itself,
   * e.g. in the same cache round trip as other work, and then passes what each set answered to
   * {@link decide}, or the error to {@link cacheFailed}.
   */
  keysOf(click: Click): string[] {
    const keys = [keyOf('s', click.sessionId, click)];
    if (click.userId !== null) keys.push(keyOf('u', click.userId.toString(), click));
    return keys;
  }

  /** The decision from what setting each of a click's keys answered (true: this call stored it). */
  decide(stored: readonly boolean[]): CacheDecision {
    return stored.includes(false) ? REPEAT : CHECK_EARLIER_CLICK;
  }

  /** The decision when the cache failed: the database alone decides, and onCacheError is told. */
  cacheFailed(error: unknown): CacheDecision {
    this.#onCacheError(error);
    return CHECK_EARLIER_CLICK;
  }

  async #clickedBefore(click: Click): Promise<boolean> {
    const { rows } = await this.#db.query(EARLIER_CLICK_SQL, [
      click.entityType,
      click.entityId.toString(),
      click.sessionId,
      click.userId === null ? null : click.userId.toString(),
    ]);
    return (rows[0] as { clicked: boolean } | undefined)?.clicked === true;
  }
}
