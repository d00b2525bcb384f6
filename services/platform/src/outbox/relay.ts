import type pg from 'pg';
import type { OutboxMetrics } from './outbox-metrics.ts';
import type { OutboxMessage, Publisher } from './publisher.ts';

/**
 * Only one relay pass runs at a time across all replicas, so per-key order holds cluster-wide. This
 * lock is what keeps two replicas off the same rows: nothing else writes pending topic rows (pruning
 * deletes published ones only), so row locks would add a WAL record per event and protect nothing.
 */
const RELAY_LOCK_KEY = 'shop.outbox.relay';

const PENDING_SQL = `
  SELECT id, event_id, name, partition_key, payload::text AS payload, created_at
    FROM outbox_events
   WHERE published_at IS NULL AND partition_key IS NOT NULL
   ORDER BY id
   LIMIT $1`;

interface PendingRow {
  id: string;
  event_id: string;
  name: string;
  partition_key: string;
  payload: string;
  created_at: Date;
}

export interface RelayOptions {
  readonly pool: pg.Pool;
  readonly publisher: Publisher;
  readonly metrics: OutboxMetrics;
  readonly batchSize?: number;
}

/**
 * Publishes pending topic events in outbox order and marks them published in the same
 * transaction that locked them: a failed publish rolls back and the rows wait for the next pass.
 */
export class OutboxRelay {
  readonly #options: RelayOptions;
  readonly #batchSize: number;

  constructor(options: RelayOptions) {
    this.#options = options;
    this.#batchSize = options.batchSize ?? 2_000;
  }

  /** One pass; returns how many events it published (0 also when another replica holds the lock). */
  async relayOnce(): Promise<number> {
    const { pool, publisher, metrics } = this.#options;
    const client = await pool.connect();
    let failure: Error | undefined;
    try {
      await client.query('BEGIN');
      const { rows: lock } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', [
        RELAY_LOCK_KEY,
      ]);
      if (!lock[0]?.locked) {
        await client.query('COMMIT');
        return 0;
      }
      const { rows } = await client.query<PendingRow>(PENDING_SQL, [this.#batchSize]);
      if (rows.length > 0) {
        await publisher.publish(rows.map(toMessage));
        await client.query('UPDATE outbox_events SET published_at = now() WHERE id = ANY($1::bigint[])', [rows.map((row) => row.id)]);
      }
      await client.query('COMMIT');
      for (const row of rows) metrics.published.inc({ topic: row.name });
      return rows.length;
    } catch (error) {
      failure = error as Error;
      metrics.publishFailures.inc();
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      // A connection that failed mid-transaction is discarded rather than reused.
      client.release(failure);
    }
  }

  get batchSize(): number {
    return this.#batchSize;
  }
}

function toMessage(row: PendingRow): OutboxMessage {
  return {
    id: row.id,
    eventId: row.event_id,
    topic: row.name,
    key: row.partition_key,
    value: row.payload,
    createdAt: row.created_at,
  };
}
