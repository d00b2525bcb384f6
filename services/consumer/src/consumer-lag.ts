import type { Admin } from 'kafkajs';
import { withTimeout, type Logger } from '@shop/platform';
import type { LagSource, PartitionLag } from './consumer-metrics.ts';

/** A scrape must answer even when Kafka does not. */
const LAG_TIMEOUT_MS = 2_000;

export interface LaggingGroup {
  readonly groupId: string;
  readonly topics: readonly string[];
}

/**
 * Lag per partition: the end offset minus the group's committed offset. A partition the group
 * never committed counts from the earliest retained offset, where a new group starts reading.
 */
export async function readLag(admin: Admin, groups: readonly LaggingGroup[]): Promise<PartitionLag[]> {
  const topics = [...new Set(groups.flatMap((group) => group.topics))];
  const endOffsets = new Map(await Promise.all(topics.map(async (topic) => [topic, await admin.fetchTopicOffsets(topic)] as const)));
  const perGroup = await Promise.all(
    groups.map(async (group) => {
      const committed = await admin.fetchOffsets({ groupId: group.groupId, topics: [...group.topics] });
      return committed.flatMap(({ topic, partitions }) =>
        partitions.flatMap(({ partition, offset }) => {
          const end = endOffsets.get(topic)?.find((entry) => entry.partition === partition);
          if (end === undefined) return [];
          const from = Number(offset) >= 0 ? Number(offset) : Number(end.low);
          return [{ group: group.groupId, topic, partition, lag: Math.max(0, Number(end.high) - from) }];
        }),
      );
    }),
  );
  return perGroup.flat();
}

/** A lag source for the metrics registry: on failure it reports nothing and logs the outage once. */
export function lagSource(admin: Admin, groups: readonly LaggingGroup[], logger: Logger): LagSource {
  let failing = false;
  return async () => {
    try {
      const lag = await withTimeout(readLag(admin, groups), LAG_TIMEOUT_MS, `Kafka did not answer within ${LAG_TIMEOUT_MS} ms`);
      if (failing) logger.info('consumer lag readable again');
      failing = false;
      return lag;
    } catch (error) {
      if (!failing) logger.warn({ err: error }, 'could not read the consumer lag; kafka_consumergroup_lag is empty until Kafka answers');
      failing = true;
      return [];
    }
  };
}
