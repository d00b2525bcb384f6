import type pg from 'pg';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '@shop/runtime';
import type { EventListener } from './listeners.ts';
import type { OutboxMetrics } from './outbox-metrics.ts';

export interface DispatcherOptions {
  readonly pool: pg.Pool;
  readonly prisma: PrismaClient;
  readonly listeners: readonly EventListener[];
  /** With no broker, topic events are dispatched to listeners here too instead of being relayed. */
  readonly includeTopics?: boolean;
  readonly metrics: OutboxMetrics;
  readonly logger: Logger;
  /** Runs of one listener on one event before its delivery is parked. */
  readonly maxAttempts?: number;
  readonly batchSize?: number;
}

/** A claimed row is left alone by other replicas for this long, then retried if nobody finished it. */
const CLAIM_SECONDS = 60;
const MAX_RETRY_DELAY_SECONDS = 300;

/**
 * Claims due events. Each variant repeats the predicate of a partial index holding only the rows
 * it can claim, so a pass reads the due rows, never the history of finished ones (which stays
 * until pruning): with a broker, the in-process events (the relay publishes the topics;
 * outbox_events_undispatched_idx); without one, every event not yet dispatched nor published
 * (outbox_events_pending_dispatch_idx). A topic event a broker already took is not handed to
 * in-process listeners again after a switch to no broker.
 */
const claimSql = (pending: string) => `
  UPDATE outbox_events SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ${CLAIM_SECONDS})
   WHERE id IN (SELECT id FROM outbox_events
                 WHERE ${pending} AND next_attempt_at <= now()
                 ORDER BY next_attempt_at, id
                 LIMIT $1
                   FOR UPDATE SKIP LOCKED)
  RETURNING id, name, payload, attempts`;
const CLAIM_IN_PROCESS_SQL = claimSql('dispatched_at IS NULL AND partition_key IS NULL');
const CLAIM_ALL_SQL = claimSql('dispatched_at IS NULL AND published_at IS NULL');

interface ClaimedRow {
  id: string;
  name: string;
  payload: unknown;
  attempts: number;
}

interface DeliveryState {
  status: 'done' | 'failed' | 'parked';
  attempts: number;
}

/**
 * Hands in-process events to their listeners after commit (and topic events too when no broker is
 * configured, marking them published once every listener is done). Each listener's effect commits together
 * with its delivery row, so a crash never loses or repeats an effect; a listener that keeps failing
 * is parked and counted without holding back the other listeners of the event.
 */
export class OutboxDispatcher {
  readonly #options: DispatcherOptions;
  readonly #maxAttempts: number;
  readonly #batchSize: number;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#maxAttempts = options.maxAttempts ?? 8;
    this.#batchSize = options.batchSize ?? 100;
  }

  get batchSize(): number {
    return this.#batchSize;
  }

  /** One pass over due events; returns how many it claimed. */
  async dispatchOnce(): Promise<number> {
    const claim = this.#options.includeTopics === true ? CLAIM_ALL_SQL : CLAIM_IN_PROCESS_SQL;
    const { rows } = await this.#options.pool.query<ClaimedRow>(claim, [this.#batchSize]);
    const states = await this.#deliveryStates(rows.map((row) => row.id));
    for (const row of rows) await this.#dispatch(row, states.get(row.id) ?? new Map());
    return rows.length;
  }

  async #dispatch(row: ClaimedRow, states: ReadonlyMap<string, DeliveryState>): Promise<void> {
    const { pool } = this.#options;
    let unfinished = 0;
    for (const listener of this.#options.listeners.filter((candidate) => candidate.event === row.name)) {
      const state = states.get(listener.name);
      if (state?.status === 'done' || state?.status === 'parked') continue;
      if (!(await this.#deliver(row, listener, state?.attempts ?? 0))) unfinished += 1;
    }
    if (unfinished === 0) {
      await pool.query(
        `UPDATE outbox_events SET dispatched_at = now(), last_error = NULL,
                published_at = CASE WHEN partition_key IS NULL THEN NULL ELSE now() END
          WHERE id = $1`,
        [row.id],
      );
    } else {
      const delay = Math.min(2 ** row.attempts, MAX_RETRY_DELAY_SECONDS);
      await pool.query('UPDATE outbox_events SET next_attempt_at = now() + make_interval(secs => $2) WHERE id = $1', [row.id, delay]);
    }
  }

  /** Returns false when the listener must be retried later. */
  async #deliver(row: ClaimedRow, listener: EventListener, previousAttempts: number): Promise<boolean> {
    const { prisma, metrics, logger } = this.#options;
    const attempts = previousAttempts + 1;
    const key = { eventId_listener: { eventId: BigInt(row.id), listener: listener.name } };
    try {
      await prisma.$transaction(async (tx) => {
        await listener.handle(tx, row.payload as never);
        await tx.outboxDelivery.upsert({
          where: key,
          create: { eventId: BigInt(row.id), listener: listener.name, status: 'done', attempts },
          update: { status: 'done', attempts, lastError: null },
        });
      });
      metrics.deliveries.inc({ listener: listener.name, result: 'done' });
      return true;
    } catch (error) {
      const parked = attempts >= this.#maxAttempts;
      const lastError = error instanceof Error ? error.message : String(error);
      const status = parked ? 'parked' : 'failed';
      await prisma.outboxDelivery.upsert({
        where: key,
        create: { eventId: BigInt(row.id), listener: listener.name, status, attempts, lastError },
        update: { status, attempts, lastError },
      });
      metrics.deliveries.inc({ listener: listener.name, result: parked ? 'parked' : 'retry' });
      const fields = { listener: listener.name, event: row.name, outbox_id: row.id, attempts, err: error };
      if (parked) {
        metrics.listenerFailures.inc({ listener: listener.name });
        logger.error(fields, `listener ${listener.name} failed ${attempts} times; delivery parked`);
      } else {
        logger.warn(fields, `listener ${listener.name} failed; will retry`);
      }
      return parked;
    }
  }

  /** Earlier deliveries of the claimed events, by event and listener, in one query. */
  async #deliveryStates(outboxIds: readonly string[]): Promise<Map<string, Map<string, DeliveryState>>> {
    const byEvent = new Map<string, Map<string, DeliveryState>>();
    if (outboxIds.length === 0) return byEvent;
    const { rows } = await this.#options.pool.query<{ event_id: string; listener: string } & DeliveryState>(
      'SELECT event_id, listener, status, attempts FROM outbox_deliveries WHERE event_id = ANY($1::bigint[])',
      [outboxIds],
    );
    for (const row of rows) {
      const listeners = byEvent.get(row.event_id) ?? new Map<string, DeliveryState>();
      listeners.set(row.listener, row);
      byEvent.set(row.event_id, listeners);
    }
    return byEvent;
  }
}
