import { setTimeout as sleep } from 'node:timers/promises';
import { defineConsumerGroup, type ConsumerGroupDefinition } from '../../src/group-definition.ts';
import type { TopicName } from '@shop/platform';

export const ALWAYS_FAILS = 'the handler fails on purpose';

export interface CountingOptions {
  /** Time each handling takes, inside its transaction. */
  readonly delayMs?: number;
  /** Runs before the effect, e.g. to hold the handler until a test lets it go. */
  readonly before?: () => Promise<void>;
}

/**
 * A test-only group whose effect can be counted: each event adds 1 to the settings row
 * `<groupId>/<event_id>`, so a row reading 2 is an effect applied twice. A payload with
 * `"fail": true` makes the handler throw.
 */
export function countingGroup(groupId: string, topic: string, options: CountingOptions = {}): ConsumerGroupDefinition {
  return defineConsumerGroup({
    groupId,
    // Test topics are unique per run, so they are not in the catalog.
    topics: [topic as TopicName],
    async handle(tx, message) {
      await options.before?.();
      if ((message.payload as { fail?: boolean }).fail === true) throw new Error(ALWAYS_FAILS);
      // why: handling that takes time inside its transaction, so a kill or SIGTERM lands mid-batch
      if (options.delayMs) await sleep(options.delayMs);
      const key = `${groupId}/${message.eventId}`;
      await tx.$executeRaw`INSERT INTO settings (key, value, updated_at) VALUES (${key}, '1'::jsonb, now())
        ON CONFLICT (key) DO UPDATE SET value = to_jsonb((settings.value #>> '{}')::int + 1), updated_at = now()`;
    },
  });
}
