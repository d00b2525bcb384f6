import type { Prisma } from '../generated/prisma/client.ts';
import type { EventPayloads, InProcessEventName } from '../events/catalog.ts';

/** A handler of an in-process event; its effect and its "done" mark commit in one transaction. */
export interface EventListener<N extends InProcessEventName = InProcessEventName> {
  /** Stable name: deliveries are tracked by it, so renaming a listener redelivers every event to it. */
  readonly name: string;
  readonly event: N;
  handle(tx: Prisma.TransactionClient, payload: EventPayloads[N]): Promise<void>;
}
