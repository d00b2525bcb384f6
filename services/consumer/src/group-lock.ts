import pg from 'pg';
import type { Logger } from '@shop/platform';

export class GroupTakenError extends Error {
  readonly groupId: string;

  constructor(groupId: string) {
    super(`consumer group ${groupId} is already run by another instance; exiting`);
    this.name = 'GroupTakenError';
    this.groupId = groupId;
  }
}

/**
 * The session settings of the lock connection: the server drops a vanished holder (a dead host, a
 * cut network) within about a minute instead of the two-hour kernel default, which frees its
 * locks; an `idle_session_timeout` set on the server must not end a session that idles on purpose.
 */
const SESSION_SETTINGS = [
  ['tcp_keepalives_idle', '30'],
  ['tcp_keepalives_interval', '10'],
  ['tcp_keepalives_count', '3'],
  ['idle_session_timeout', '0'],
] as const;

/**
 * One instance per consumer group: session advisory locks keyed by group id, held on a connection
 * of their own for the life of the process. PostgreSQL releases them when that session ends, so a
 * crashed instance frees its groups without anyone cleaning up.
 */
export class GroupLocks {
  readonly #client: pg.Client;
  /** Set once every lock is held: from then on, a dropped connection means the locks are lost. */
  #onLost: ((error: Error) => void) | undefined;
  #released = false;

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  /**
   * Takes every group's lock or none: throws GroupTakenError naming the first group another
   * instance holds. `onLost` runs if the connection drops later, since the locks are gone with it.
   */
  static async acquire(
    databaseUrl: string,
    groupIds: readonly string[],
    logger: Logger,
    onLost: (error: Error) => void,
  ): Promise<GroupLocks> {
    const client = new pg.Client({ connectionString: databaseUrl, keepAlive: true, application_name: 'shop-consumer-locks' });
    const locks = new GroupLocks(client);
    client.on('error', (error) => locks.#lost(error));
    client.on('end', () => locks.#lost(new Error('the lock connection closed')));
    await client.connect();
    try {
      for (const [name, value] of SESSION_SETTINGS) {
        await client.query('SELECT set_config($1, $2, false)', [name, value]).catch((error: Error) => {
          logger.debug({ err: error, setting: name }, 'the lock session setting is not supported here');
        });
      }
      for (const groupId of groupIds) {
        const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtext('consumer:' || $1)) AS locked", [
          groupId,
        ]);
        if (!rows[0]?.locked) throw new GroupTakenError(groupId);
      }
      locks.#onLost = onLost;
      return locks;
    } catch (error) {
      await locks.release();
      throw error;
    }
  }

  /** Ends the session, which releases every lock it holds. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    await this.#client.end().catch(() => {});
  }

  #lost(error: Error): void {
    if (this.#released || this.#onLost === undefined) return;
    this.#released = true;
    this.#onLost(error);
  }
}
