import pg from 'pg';
import type { Logger } from '@shop/runtime';
import { DEFAULT_RATE_LIMIT_POLICIES, invalidPolicyReason, type RateLimitPolicy, type RateLimitPolicyLookup } from './policy.ts';

/** The channel the migration's trigger notifies on every change to rate_limit_policies. */
export const RATE_LIMIT_POLICIES_CHANNEL = 'rate_limit_policies';

const SELECT_POLICIES = `SELECT key, capacity, refill_per_second::float8 AS refill_per_second, enabled FROM rate_limit_policies`;

export interface RateLimitPoliciesOptions {
  /** Reads the table. */
  readonly pool: Pick<pg.Pool, 'query'>;
  /** Where the dedicated LISTEN connection goes (the database's url). */
  readonly url: string;
  readonly logger: Logger;
  /**
   * LISTEN for changes (default). Off for the embedded PGlite database, whose one shared session cannot
   * deliver notifications to a connection of their own: there the table is polled every `pollWhileDeafMs`.
   */
  readonly listen?: boolean;
  /** The fallback reload while the LISTEN connection is up, for a notification lost in a reconnect. */
  readonly pollWhileListeningMs?: number;
  /** The reload while not listening (off, or the connection is down): within the promised 5 s. */
  readonly pollWhileDeafMs?: number;
  /** Applies to keys with no row. */
  readonly defaults?: readonly RateLimitPolicy[];
}

const DEFAULT_POLL_WHILE_LISTENING_MS = 60_000;
const DEFAULT_POLL_WHILE_DEAF_MS = 5_000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;

interface PolicyRow {
  key: string;
  capacity: number;
  refill_per_second: number;
  enabled: boolean;
}

/**
 * The policies in rate_limit_policies, held in memory so a request never waits on the database. A trigger
 * NOTIFYs every change; a dedicated connection LISTENs and reloads the table when told, and reconnects
 * (with backoff) when it is lost, reloading at once to catch what it missed. A periodic reload backs it up.
 * Until the first load, and for keys with no row, the defaults apply.
 */
export class RateLimitPolicies implements RateLimitPolicyLookup {
  readonly #options: RateLimitPoliciesOptions;
  readonly #defaults: ReadonlyMap<string, RateLimitPolicy>;
  #policies: ReadonlyMap<string, RateLimitPolicy>;
  #listener: pg.Client | undefined;
  #listening = false;
  #closed = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectDelayMs = RECONNECT_MIN_MS;
  #reloading: Promise<void> | undefined;
  #reloadAgain = false;
  #loadFailing = false;
  #loads = 0;

  constructor(options: RateLimitPoliciesOptions) {
    this.#options = options;
    this.#defaults = new Map((options.defaults ?? DEFAULT_RATE_LIMIT_POLICIES).map((policy) => [policy.key, policy]));
    this.#policies = this.#defaults;
  }

  /** Loads the table and starts listening. Never throws: with the database down the defaults apply meanwhile. */
  async start(): Promise<void> {
    await this.reload();
    if (this.#options.listen !== false) await this.#connectListener();
    this.#schedulePoll();
  }

  get(key: string): RateLimitPolicy | undefined {
    return this.#policies.get(key);
  }

  /** Every policy in force, rows and defaults. */
  all(): RateLimitPolicy[] {
    return [...this.#policies.values()];
  }

  /** True while the LISTEN connection is up. */
  get listening(): boolean {
    return this.#listening;
  }

  /** Completed loads (for tests and debugging). */
  get loads(): number {
    return this.#loads;
  }

  /** Reads the table again. Calls during a load coalesce into one more load after it. */
  reload(): Promise<void> {
    if (this.#reloading !== undefined) {
      this.#reloadAgain = true;
      return this.#reloading;
    }
    const run = async (): Promise<void> => {
      do {
        this.#reloadAgain = false;
        await this.#load();
      } while (this.#reloadAgain && !this.#closed);
    };
    this.#reloading = run().finally(() => (this.#reloading = undefined));
    return this.#reloading;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#pollTimer);
    clearTimeout(this.#reconnectTimer);
    const listener = this.#listener;
    this.#listener = undefined;
    this.#listening = false;
    await listener?.end().catch(() => {});
    await this.#reloading;
  }

  async #load(): Promise<void> {
    let rows: PolicyRow[];
    try {
      ({ rows } = await this.#options.pool.query<PolicyRow>(SELECT_POLICIES));
    } catch (error) {
      if (!this.#loadFailing) this.#options.logger.warn({ err: error }, 'cannot read rate_limit_policies: keeping the policies in force');
      this.#loadFailing = true;
      return;
    }
    if (this.#loadFailing) this.#options.logger.info('rate_limit_policies read again');
    this.#loadFailing = false;
    const policies = new Map(this.#defaults);
    for (const row of rows) {
      const policy: RateLimitPolicy = {
        key: row.key,
        capacity: row.capacity,
        refillPerSecond: row.refill_per_second,
        enabled: row.enabled,
      };
      const invalid = invalidPolicyReason(policy);
      if (invalid === undefined) policies.set(policy.key, policy);
      else this.#options.logger.warn({ policy: row.key }, `ignoring rate limit policy: ${invalid}`);
    }
    this.#policies = policies;
    this.#loads += 1;
  }

  async #connectListener(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.#options.url,
      application_name: 'rate-limit-policies',
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      client.removeAllListeners('notification');
      client.end().catch(() => {});
      if (this.#listener !== client) return;
      this.#listener = undefined;
      this.#listening = false;
      if (this.#closed) return;
      this.#options.logger.warn({ err: error }, 'rate limit policy listener lost: reloading every few seconds until it is back');
      this.#schedulePoll();
      this.#scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === RATE_LIMIT_POLICIES_CHANNEL) void this.reload();
    });
    this.#listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${RATE_LIMIT_POLICIES_CHANNEL}`);
    } catch (error) {
      if (this.#listener === client) onLost(error as Error);
      return;
    }
    if (this.#listener !== client || this.#closed) return;
    const wasReconnecting = this.#reconnectDelayMs !== RECONNECT_MIN_MS;
    this.#listening = true;
    this.#reconnectDelayMs = RECONNECT_MIN_MS;
    if (wasReconnecting) {
      this.#options.logger.info('rate limit policy listener restored');
      // Changes committed while nobody listened sent notifications nobody heard.
      await this.reload();
    }
    this.#schedulePoll();
  }

  #scheduleReconnect(): void {
    clearTimeout(this.#reconnectTimer);
    const delay = this.#reconnectDelayMs;
    this.#reconnectDelayMs = Math.min(this.#reconnectDelayMs * 2, RECONNECT_MAX_MS);
    this.#reconnectTimer = setTimeout(() => void this.#connectListener(), delay).unref();
  }

  #schedulePoll(): void {
    if (this.#closed) return;
    clearTimeout(this.#pollTimer);
    const interval = this.#listening
      ? (this.#options.pollWhileListeningMs ?? DEFAULT_POLL_WHILE_LISTENING_MS)
      : (this.#options.pollWhileDeafMs ?? DEFAULT_POLL_WHILE_DEAF_MS);
    this.#pollTimer = setTimeout(() => {
      void this.reload().finally(() => this.#schedulePoll());
    }, interval).unref();
  }
}
