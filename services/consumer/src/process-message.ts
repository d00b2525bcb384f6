import { setTimeout as sleep } from 'node:timers/promises';
import type { KafkaMessage } from 'kafkajs';
import type { Logger, PrismaClient } from '@shop/platform';
import type { ConsumerGroupDefinition } from './group-definition.ts';
import type { ConsumerMetrics } from './consumer-metrics.ts';
import { deadLetterTopic, type DeadLetterQueue } from './dead-letter.ts';
import { decodeMessage } from './decode-message.ts';
import { HandlerError, handleOnce } from './handle-once.ts';
import { delayAfter, type RetryPolicy } from './retry-policy.ts';

export interface ProcessorDependencies {
  readonly prisma: PrismaClient;
  readonly deadLetters: DeadLetterQueue;
  readonly metrics: ConsumerMetrics;
  readonly logger: Logger;
  readonly retry: RetryPolicy;
  /** Whether the database answers now: a failure while it does not is an outage, not the handler's fault. */
  readonly databaseAnswers: () => Promise<boolean>;
}

export interface ReceivedMessage {
  readonly topic: string;
  readonly partition: number;
  readonly message: KafkaMessage;
}

export interface ProcessingControl {
  /** Aborted when the process stops: a message still being retried is left for the next instance. */
  readonly signal: AbortSignal;
  /** Keeps the group membership alive between attempts. */
  heartbeat(): Promise<void>;
}

/** `finished`: handled, skipped as a duplicate or dead-lettered, so its offset may be committed. */
export type Outcome = 'finished' | 'abandoned';

/**
 * Takes one message to an end: decode it (poison goes to the dead-letter topic at once), then run
 * the handler with retries and backoff, and dead-letter it when every attempt failed. Only a
 * failure once the handler ran, while the database answers, spends an attempt: failing to get a
 * connection or start the transaction, or any failure while the database is down, is the
 * infrastructure's, and the message waits (at the longest backoff, without limit) instead of being
 * dead-lettered.
 */
export async function processMessage(
  dependencies: ProcessorDependencies,
  group: ConsumerGroupDefinition,
  received: ReceivedMessage,
  control: ProcessingControl,
): Promise<Outcome> {
  const { prisma, metrics, logger, retry } = dependencies;
  const { topic, partition, message } = received;
  const labels = { group: group.groupId, topic };
  const decoded = decodeMessage(topic, partition, message);
  if (!decoded.ok) {
    await deadLetter(dependencies, group, received, decoded.reason, 0);
    return 'finished';
  }
  const fields = { ...labels, partition, offset: message.offset, event_id: decoded.message.eventId };

  let attempts = 0;
  let waitingForInfrastructure = false;
  for (;;) {
    if (control.signal.aborted) return 'abandoned';
    try {
      const result = await handleOnce(prisma, group, decoded.message);
      metrics.handled.inc({ ...labels, result });
      return 'finished';
    } catch (error) {
      if (!(error instanceof HandlerError) || !(await dependencies.databaseAnswers())) {
        if (!waitingForInfrastructure) logger.warn({ ...fields, err: error }, 'the database failed the message; it waits and tries again');
        waitingForInfrastructure = true;
        if (!(await pause(retry.maxDelayMs, control))) return 'abandoned';
        continue;
      }
      waitingForInfrastructure = false;
      attempts += 1;
      metrics.handlerFailures.inc(labels);
      if (attempts >= retry.attempts) {
        await deadLetter(dependencies, group, received, error.message, attempts);
        return 'finished';
      }
      const delay = delayAfter(retry, attempts);
      logger.warn(
        { ...fields, attempts, err: error.cause },
        `${group.groupId} failed on ${topic} (attempt ${attempts} of ${retry.attempts}); retrying in ${delay} ms`,
      );
      if (!(await pause(delay, control))) return 'abandoned';
    }
  }
}

async function deadLetter(
  dependencies: ProcessorDependencies,
  group: ConsumerGroupDefinition,
  received: ReceivedMessage,
  reason: string,
  attempts: number,
): Promise<void> {
  const { topic, partition, message } = received;
  await dependencies.deadLetters.send({ groupId: group.groupId, topic, partition, message, reason, attempts });
  dependencies.metrics.handled.inc({ group: group.groupId, topic, result: 'dead_lettered' });
  const target = deadLetterTopic(group.groupId, topic);
  dependencies.logger.error(
    { group: group.groupId, topic, partition, offset: message.offset, attempts, reason, dead_letter_topic: target },
    `${group.groupId} gave up on a ${topic} message; sent it to ${target}`,
  );
}

/** Waits between attempts, heartbeating around the wait; false when the process stops meanwhile. */
async function pause(ms: number, control: ProcessingControl): Promise<boolean> {
  await control.heartbeat();
  try {
    await sleep(ms, undefined, { signal: control.signal });
  } catch {
    return false;
  }
  await control.heartbeat();
  return true;
}
