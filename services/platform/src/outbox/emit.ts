import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { EventSchemaMode } from '../config/variables.ts';
import type { Logger } from '@shop/runtime';
import { isTopic, partitionKeyOf, type EventName, type EventPayloads } from '../events/catalog.ts';
import { EventSchemaError, validateEvent } from '../events/validator.ts';
import type { OutboxMetrics } from './outbox-metrics.ts';

/** Fields every payload carries; emit fills them when the producer leaves them out. */
type Envelope = 'event_id' | 'schema_version' | 'occurred_at';

export type EmitPayload<N extends EventName> = Omit<EventPayloads[N], Envelope> & Partial<Pick<EventPayloads[N], Envelope>>;

/** Writes an event to the outbox inside the caller's transaction: it exists if and only if the change commits. */
export type Emit = <N extends EventName>(tx: Prisma.TransactionClient, name: N, payload: EmitPayload<N>) => Promise<void>;

export type TransactionOptions = Parameters<PrismaClient['$transaction']>[1];

/** Runs `work` in one transaction; the events it emits are written together, in one statement, just before commit. */
export type RunTransaction = <T>(work: (tx: Prisma.TransactionClient) => Promise<T>, options?: TransactionOptions) => Promise<T>;

export interface Emitter {
  readonly emit: Emit;
  transaction<T>(prisma: PrismaClient, work: (tx: Prisma.TransactionClient) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

export interface EmitterOptions {
  readonly mode: EventSchemaMode;
  readonly logger: Logger;
  readonly metrics: OutboxMetrics;
  readonly now?: () => Date;
}

interface OutboxRow {
  readonly eventId: string;
  readonly name: string;
  readonly partitionKey: string | null;
  readonly payload: string;
}

/** Kafka's default limit is 1 MiB per record batch; a larger event could never be relayed and would block the outbox. */
export const MAX_EVENT_BYTES = 256 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validates each payload against its schema: `strict` throws (the transaction rolls back), `warn`
 * logs, counts and still writes, so a bad payload never blocks a business transaction.
 *
 * Inside `transaction` the rows wait in memory and go out as one multi-row insert before commit
 * (a round trip per transaction instead of per event); an emit into any other transaction writes
 * its row at once.
 */
export function createEmitter(options: EmitterOptions): Emitter {
  const now = options.now ?? (() => new Date());
  const buffered = new WeakMap<Prisma.TransactionClient, OutboxRow[]>();

  const toRow = (name: EventName, input: object): OutboxRow => {
    const payload: Record<string, unknown> = { event_id: randomUUID(), schema_version: 1, occurred_at: now().toISOString(), ...input };
    const errors = validateEvent(name, payload);
    if (errors.length > 0) {
      if (options.mode === 'strict') throw new EventSchemaError(name, errors);
      options.metrics.schemaWarnings.inc({ topic: name });
      options.logger.warn({ topic: name, event_id: payload.event_id, errors }, `event ${name} does not match its schema; emitted anyway`);
    }
    // In warn mode the payload may lack a usable id or key; the row must still be writable.
    const eventId = typeof payload.event_id === 'string' && UUID.test(payload.event_id) ? payload.event_id : randomUUID();
    const partitionKey = isTopic(name) ? partitionKeyOf(name, payload) || eventId : null;
    const json = JSON.stringify(payload);
    if (Buffer.byteLength(json) > MAX_EVENT_BYTES) {
      throw new RangeError(
        `event ${name} is ${Buffer.byteLength(json)} bytes; events may be at most ${MAX_EVENT_BYTES} bytes (carry ids, not documents)`,
      );
    }
    return { eventId, name, partitionKey, payload: json };
  };

  return {
    async emit(tx, name, input) {
      const row = toRow(name, input);
      const batch = buffered.get(tx);
      if (batch === undefined) await insertRows(tx, [row]);
      else batch.push(row);
    },
    transaction(prisma, work, transactionOptions) {
      return prisma.$transaction(async (tx) => {
        const batch: OutboxRow[] = [];
        buffered.set(tx, batch);
        const result = await work(tx);
        buffered.delete(tx);
        if (batch.length > 0) await insertRows(tx, batch);
        return result;
      }, transactionOptions);
    },
  };
}

/** Raw SQL: several times cheaper than model creates. Rows get their ids in emit order. */
async function insertRows(tx: Prisma.TransactionClient, rows: readonly OutboxRow[]): Promise<void> {
  await tx.$executeRaw`INSERT INTO outbox_events (event_id, name, partition_key, payload)
    SELECT event_id, name, partition_key, payload
      FROM unnest(${rows.map((row) => row.eventId)}::uuid[], ${rows.map((row) => row.name)}::text[],
                  ${rows.map((row) => row.partitionKey)}::text[], ${rows.map((row) => row.payload)}::jsonb[])
           WITH ORDINALITY AS emitted (event_id, name, partition_key, payload, position)
     ORDER BY position`;
}
