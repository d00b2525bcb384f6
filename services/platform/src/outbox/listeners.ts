import type { Prisma } from '../generated/prisma/client.ts';
import type { EventName, EventPayloads } from '../events/catalog.ts';

/**
 * A handler of an in-process event (or, with no broker configured, of a topic event that the
 * consumer service would otherwise handle); its effect and its "done" mark commit in one transaction.
 */
export interface EventListener<N extends EventName = EventName> {
  /** Stable name: deliveries are tracked by it, so renaming a listener redelivers every event to it. */
  readonly name: string;
  readonly event: N;
  handle(tx: Prisma.TransactionClient, payload: EventPayloads[N]): Promise<void>;
}
