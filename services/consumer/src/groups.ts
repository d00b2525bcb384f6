import type { Logger } from '@shop/platform';
import type { ConsumerGroupDefinition } from './group-definition.ts';
import { auditGroup } from './handlers/audit.ts';

/** What a group's handlers may use besides the transaction they are given. */
export interface GroupContext {
  readonly logger: Logger;
}

/**
 * Every consumer group this service runs, one kafkajs consumer each. To add one, write its
 * definition in handlers/ and list it here; its group id must stay stable (offsets, processed_events
 * rows and its dead-letter topics are keyed by it).
 */
export function consumerGroups(context: GroupContext): readonly ConsumerGroupDefinition[] {
  return [auditGroup(context.logger)];
}
