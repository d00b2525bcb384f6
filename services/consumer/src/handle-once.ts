import type { PrismaClient } from '@shop/platform';
import type { ConsumedMessage, ConsumerGroupDefinition } from './group-definition.ts';

export type HandleResult = 'done' | 'duplicate';

/**
 * The handler ran and its work did not commit: it threw, or its transaction could not commit (it
 * outlived the transaction timeout, or conflicted). Failing before the handler ran (no connection,
 * no transaction) is the infrastructure's fault and is thrown as it is.
 */
export class HandlerError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message || cause.name : String(cause), { cause });
    this.name = 'HandlerError';
  }
}

/**
 * One transaction: record (group, event_id) in processed_events, then run the handler. An event the
 * group already handled inserts nothing and the handler is skipped; a failing handler rolls the
 * record back with its effect, so the next attempt starts clean.
 */
export async function handleOnce(prisma: PrismaClient, group: ConsumerGroupDefinition, message: ConsumedMessage): Promise<HandleResult> {
  let handlerRan = false;
  try {
    return await prisma.$transaction(async (tx) => {
      const { count } = await tx.processedEvent.createMany({
        data: [{ consumerGroup: group.groupId, eventId: message.eventId, topic: message.topic }],
        skipDuplicates: true,
      });
      if (count === 0) return 'duplicate';
      handlerRan = true;
      await group.handle(tx, message);
      return 'done';
    });
  } catch (error) {
    throw handlerRan ? new HandlerError(error) : error;
  }
}
