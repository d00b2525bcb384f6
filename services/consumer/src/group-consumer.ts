import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { ConsumerGroupDefinition } from './group-definition.ts';
import { processMessage, type ProcessorDependencies } from './process-message.ts';

export type GroupState = 'starting' | 'running' | 'restarting' | 'stopped' | 'crashed';

export interface GroupConsumerOptions {
  /** Partitions handled at the same time; messages of one partition are always handled in order. */
  readonly partitionsConsumedConcurrently: number;
  /** Handled offsets are committed at least this often... */
  readonly commitIntervalMs: number;
  /** ...or once this many are waiting, whichever comes first, and always at the end of a batch. */
  readonly commitThreshold: number;
  readonly sessionTimeoutMs: number;
  /**
   * How long a fetch waits for new messages. Stopping waits for the fetch under way, so this bounds
   * how long a graceful stop takes; an idle group sends one fetch per broker this often.
   */
  readonly maxWaitTimeMs: number;
}

/**
 * A topic nobody produced to yet has no leader for a moment after the subscription makes the broker
 * create it; subscribing is retried meanwhile. A topic that stays missing stops the start.
 */
const SUBSCRIBE_ATTEMPTS = 8;
const SUBSCRIBE_RETRY_MS = 250;

export const DEFAULT_GROUP_CONSUMER_OPTIONS: GroupConsumerOptions = {
  partitionsConsumedConcurrently: 4,
  commitIntervalMs: 1_000,
  commitThreshold: 100,
  sessionTimeoutMs: 30_000,
  maxWaitTimeMs: 1_000,
};

/**
 * One kafkajs consumer for one group definition. Offsets are resolved one by one as messages are
 * finished (eachBatch with auto-resolve off), and only resolved offsets are ever committed: by
 * kafkajs at most `commitIntervalMs` or `commitThreshold` apart, at the end of every batch, before a
 * rebalance and when the consumer stops. A crash can therefore redeliver up to that many finished
 * messages; processed_events turns those into duplicates that are skipped.
 */
export class GroupConsumer {
  readonly definition: ConsumerGroupDefinition;
  readonly #consumer: Consumer;
  readonly #dependencies: ProcessorDependencies;
  readonly #options: GroupConsumerOptions;
  readonly #stopping = new AbortController();
  #state: GroupState = 'starting';

  constructor(
    kafka: Kafka,
    definition: ConsumerGroupDefinition,
    dependencies: ProcessorDependencies,
    options: GroupConsumerOptions,
    onCrashed: (error: Error) => void,
  ) {
    this.definition = definition;
    this.#dependencies = dependencies;
    this.#options = options;
    this.#consumer = kafka.consumer({
      groupId: definition.groupId,
      sessionTimeout: options.sessionTimeoutMs,
      maxWaitTimeInMs: options.maxWaitTimeMs,
    });
    const { GROUP_JOIN, CRASH } = this.#consumer.events;
    this.#consumer.on(GROUP_JOIN, () => {
      if (this.#state !== 'stopped') this.#state = 'running';
    });
    this.#consumer.on(CRASH, ({ payload: { error, restart } }) => {
      if (this.#state === 'stopped') return;
      this.#state = restart ? 'restarting' : 'crashed';
      if (!restart) onCrashed(error);
    });
  }

  get state(): GroupState {
    return this.#state;
  }

  /** Resolves once the consumer has joined its group (or crashed trying: see `state`). */
  async start(): Promise<void> {
    await this.#consumer.connect();
    // A group that never committed starts at the earliest retained message: nothing emitted before
    // its first deployment is skipped.
    await this.#subscribe();
    await this.#consumer.run({
      autoCommit: true,
      autoCommitInterval: this.#options.commitIntervalMs,
      autoCommitThreshold: this.#options.commitThreshold,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.#options.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.#consumeBatch(payload),
    });
  }

  /** Stops fetching, finishes the message in hand, commits what is finished, leaves the group. */
  async stop(): Promise<void> {
    this.#state = 'stopped';
    this.#stopping.abort();
    await this.#consumer.disconnect();
  }

  async #subscribe(): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#consumer.subscribe({ topics: [...this.definition.topics], fromBeginning: true });
      } catch (error) {
        if (attempt >= SUBSCRIBE_ATTEMPTS || (error as { retriable?: boolean }).retriable !== true) throw error;
        await sleep(SUBSCRIBE_RETRY_MS * attempt);
      }
    }
  }

  async #consumeBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const control = { signal: this.#stopping.signal, heartbeat };
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) return;
      const received = { topic: batch.topic, partition: batch.partition, message };
      if ((await processMessage(this.#dependencies, this.definition, received, control)) === 'abandoned') return;
      resolveOffset(message.offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }
}
