import { partitionKeyOf } from '@shop/platform';
import { defineSubscription } from '../events/index.ts';

/** Keeps an append-only trail of account and lead creations in audit_entries, one row per event. */
export const auditSubscription = defineSubscription({
  name: 'shop.audit',
  topics: ['shop.accounts.created.v1', 'shop.leads.created.v1'],
  async handle(tx, event) {
    // skipDuplicates: a second delivery of one event leaves the trail as it was.
    await tx.auditEntry.createMany({
      data: {
        eventId: event.eventId,
        topic: event.topic,
        entityId: partitionKeyOf(event.topic, event.payload as unknown as Record<string, unknown>),
        occurredAt: new Date(event.payload.occurred_at),
        payload: event.payload as object,
      },
      skipDuplicates: true,
    });
  },
});
