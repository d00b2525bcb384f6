import { randomUUID } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.ts';
import type { EventSchemaMode } from '../config/variables.ts';
import type { Logger } from '../logging/logger.ts';
import { isTopic, partitionKeyOf, type EventName, type EventPayloads } from '../events/catalog.ts';
import { EventSchemaError, validateEvent } from '../events/validator.ts';
import type { OutboxMetrics } from './outbox-metrics.ts';

/** Fields every payload carries; emit fills them when the producer leaves them out. */
type Envelope = 'event_id' | 'schema_version' | 'occurred_at';

export type EmitPayload<N extends EventName> = Omit<EventPayloads[N], Envelope> & Partial<Pick<EventPayloads[N], Envelope>>;

/** Writes an event to the outbox inside the caller's transaction: it exists if and only if the change commits. */
export type Emit = <N extends EventName>(tx: Prisma.TransactionClient, name: N, payload: EmitPayload<N>) => Promise<void>;

export interface EmitterOptions {
  readonly mode: EventSchemaMode;
  readonly logger: Logger;
  readonly metrics: OutboxMetrics;
  readonly now?: () => Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validates the payload against its schema: `strict` throws (the transaction rolls back), `warn`
 * logs, counts and still writes, so a bad payload never blocks a business transaction.
 */
export function createEmitter(options: EmitterOptions): Emit {
  const now = options.now ?? (() => new Date());
  return async (tx, name, input) => {
    const payload: Record<string, unknown> = {
      event_id: randomUUID(),
      schema_version: 1,
      occurred_at: now().toISOString(),
      ...(input as Record<string, unknown>),
    };
    const errors = validateEvent(name, payload);
    if (errors.length > 0) {
      if (options.mode === 'strict') throw new EventSchemaError(name, errors);
      options.metrics.schemaWarnings.inc({ topic: name });
      options.logger.warn({ topic: name, event_id: payload.event_id, errors }, `event ${name} does not match its schema; emitted anyway`);
    }
    // In warn mode the payload may lack a usable id or key; the row must still be writable.
    const eventId = typeof payload.event_id === 'string' && UUID.test(payload.event_id) ? payload.event_id : randomUUID();
    const partitionKey = isTopic(name) ? (partitionKeyOf(name, payload) || eventId) : null;
    // A raw insert: several times cheaper than a model create, and emit runs inside hot transactions.
    await tx.$executeRaw`INSERT INTO outbox_events (event_id, name, partition_key, payload)
      VALUES (${eventId}::uuid, ${name}, ${partitionKey}, ${JSON.stringify(payload)}::jsonb)`;
  };
}
