import type { Logger } from '@shop/platform';
import { defineConsumerGroup, type ConsumerGroupDefinition } from '../group-definition.ts';

export const AUDIT_GROUP_ID = 'shop.audit';

/**
 * Records account and lead creations. There is no audit table yet, so the record is twofold: the
 * group's processed_events row (exactly once, committed with the handling) and one INFO log line per
 * event. The line is written inside the transaction, so a failed commit can repeat it: treat the
 * log as a trail, processed_events as the record. A later issue adds an audit table and writes it
 * here through `tx`.
 */
export function auditGroup(logger: Logger): ConsumerGroupDefinition {
  const audit = logger.child({ group: AUDIT_GROUP_ID });
  return defineConsumerGroup({
    groupId: AUDIT_GROUP_ID,
    topics: ['shop.accounts.created.v1', 'shop.leads.created.v1'],
    async handle(_tx, message) {
      const fields = { audit: true, topic: message.topic, event_id: message.eventId, key: message.key, occurred_at: message.payload.occurred_at };
      audit.info(fields, `audit: ${message.topic} ${message.key ?? ''}`.trimEnd());
    },
  });
}
