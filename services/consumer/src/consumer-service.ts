import type { Kafka } from 'kafkajs';
import { runProbe, type Platform } from '@shop/platform';
import type { ConsumerGroupDefinition } from './group-definition.ts';
import { consumerMetrics } from './consumer-metrics.ts';
import { lagSource } from './consumer-lag.ts';
import { createDeadLetterTopics, deadLetterTopic, DeadLetterQueue } from './dead-letter.ts';
import { GroupLocks } from './group-lock.ts';
import { DEFAULT_GROUP_CONSUMER_OPTIONS, GroupConsumer, type GroupConsumerOptions, type GroupState } from './group-consumer.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { startProcessedEventsPruning } from './processed-events-pruning.ts';

export type ConsumerPlatform = Pick<Platform, 'logger' | 'metrics' | 'database' | 'broker'>;

export interface ConsumerServiceOptions {
  readonly retry?: RetryPolicy;
  readonly consumer?: Partial<GroupConsumerOptions>;
  /** How long handled event ids are remembered (PROCESSED_EVENTS_RETENTION_HOURS). */
  readonly processedEventsRetentionHours?: number;
  /** Called when the service can no longer run safely (its locks are lost, a group crashed for good). */
  readonly onFatal?: (error: Error) => void;
}

export interface ConsumerService {
  readonly groups: readonly GroupConsumer[];
  /** Every group has joined and is consuming. */
  isRunning(): boolean;
  states(): Record<string, GroupState>;
  /** Stops every group (finishing messages in hand and committing), then releases the group locks. */
  stop(): Promise<void>;
}

/** Two weeks: longer than Kafka's default topic retention, so a replay from the log is still recognised. */
const DEFAULT_RETENTION_HOURS = 336;

/** How long the database gets to answer before a handler failure is put down to an outage. */
const DATABASE_CHECK_TIMEOUT_MS = 1_500;

/**
 * Runs the given consumer groups over an opened platform with a Kafka broker: takes each group's
 * lock (throwing GroupTakenError when another instance holds one), then starts one kafkajs consumer
 * per group, a dead-letter producer and the lag reading behind kafka_consumergroup_lag.
 */
export async function startConsumerService(
  platform: ConsumerPlatform,
  groups: readonly ConsumerGroupDefinition[],
  options: ConsumerServiceOptions = {},
): Promise<ConsumerService> {
  const { logger, database } = platform;
  const kafka = kafkaOf(platform);
  checkDefinitions(groups);
  const onFatal = options.onFatal ?? ((error: Error) => logger.error({ err: error }, 'the consumer cannot go on'));
  const locks = await GroupLocks.acquire(
    database.url,
    groups.map((group) => group.groupId),
    logger,
    (error) => onFatal(new Error(`lost the connection holding the consumer group locks: ${error.message}`)),
  );

  const metrics = consumerMetrics(platform.metrics);
  const admin = kafka.admin();
  const deadLetters = new DeadLetterQueue(kafka);
  const consumerOptions = { ...DEFAULT_GROUP_CONSUMER_OPTIONS, ...options.consumer };
  const dependencies = {
    prisma: database.prisma,
    deadLetters,
    metrics,
    logger,
    retry: options.retry ?? DEFAULT_RETRY_POLICY,
    databaseAnswers: async () => (await runProbe(database, DATABASE_CHECK_TIMEOUT_MS)).status === 'healthy',
  };
  const consumers = groups.map(
    (group) =>
      new GroupConsumer(kafka, group, { ...dependencies, logger: logger.child({ group: group.groupId }) }, consumerOptions, (error) =>
        onFatal(new Error(`consumer group ${group.groupId} stopped: ${error.message}`)),
      ),
  );
  let removeLagSource = () => {};
  const pruning = startProcessedEventsPruning(database.pool, options.processedEventsRetentionHours ?? DEFAULT_RETENTION_HOURS, logger);

  const stop = async () => {
    await Promise.allSettled([...consumers.map((consumer) => consumer.stop()), pruning.stop()]);
    removeLagSource();
    await Promise.allSettled([deadLetters.close(), admin.disconnect()]);
    await locks.release();
  };

  try {
    await admin.connect();
    await createDeadLetterTopics(admin, deadLetterTopics(groups), logger);
    await deadLetters.connect();
    removeLagSource = metrics.addLagSource(lagSource(admin, groups, logger));
    await Promise.all(consumers.map((consumer) => consumer.start()));
  } catch (error) {
    await stop();
    throw error;
  }
  for (const group of groups) logger.info({ group: group.groupId, topics: group.topics }, `consumer group ${group.groupId} started`);

  return {
    groups: consumers,
    isRunning: () => consumers.every((consumer) => consumer.state === 'running'),
    states: () => Object.fromEntries(consumers.map((consumer) => [consumer.definition.groupId, consumer.state])),
    stop,
  };
}

function kafkaOf(platform: ConsumerPlatform): Kafka {
  const { kafka } = platform.broker;
  if (kafka === undefined) throw new Error('the consumer service needs a Kafka broker (BROKER_ADDRESS)');
  return kafka;
}

function checkDefinitions(groups: readonly ConsumerGroupDefinition[]): void {
  const seen = new Set<string>();
  for (const group of groups) {
    if (seen.has(group.groupId)) throw new Error(`consumer group ${group.groupId} is defined twice`);
    if (group.topics.length === 0) throw new Error(`consumer group ${group.groupId} subscribes to no topic`);
    seen.add(group.groupId);
  }
}

function deadLetterTopics(groups: readonly ConsumerGroupDefinition[]): string[] {
  return groups.flatMap((group) => group.topics.map((topic) => deadLetterTopic(group.groupId, topic)));
}
