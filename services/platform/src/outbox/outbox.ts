import type { Platform } from '../platform.ts';
import { createEmitter, type Emit, type RunTransaction } from './emit.ts';
import { OutboxDispatcher } from './dispatcher.ts';
import { OutboxRelay } from './relay.ts';
import { KafkaPublisher } from './kafka-publisher.ts';
import type { EventListener } from './listeners.ts';
import { outboxMetrics, registerParkedDeliveriesGauge } from './outbox-metrics.ts';
import { pruneOutbox } from './prune.ts';
import { PollingLoop } from './polling-loop.ts';
import { pruningLoop } from '../db/pruning-loop.ts';

export interface OutboxOptions {
  /** In-process listeners; with no broker configured, listeners of topic events run here too. */
  readonly listeners?: readonly EventListener[];
  /** How long an idle loop waits before looking for new events. */
  readonly idleMs?: number;
  /** Runs of one listener on one event before its delivery is parked (the dispatcher's default otherwise). */
  readonly maxAttempts?: number;
}

export interface RunningOutbox {
  readonly emit: Emit;
  /** A transaction whose events are written in one statement before commit: use it for business operations. */
  readonly transaction: RunTransaction;
  readonly dispatcher: OutboxDispatcher;
  /** Finishes the passes under way, then stops relaying and dispatching. */
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * The emitter, plus the loops of one process: the relay to Kafka (when a broker is configured),
 * the dispatcher to in-process listeners (and to topic listeners when there is no broker), pruning.
 */
export function startOutbox(platform: Platform, options: OutboxOptions = {}): RunningOutbox {
  const { config, logger, database, broker } = platform;
  const metrics = outboxMetrics(platform.metrics, database.pool);
  const listeners = options.listeners ?? [];
  registerParkedDeliveriesGauge(platform.metrics, database.pool, [...new Set(listeners.map((listener) => listener.name))]);
  const idleMs = options.idleMs ?? 50;
  const publisher = broker.kafka === undefined ? undefined : new KafkaPublisher(broker.kafka, logger);
  const dispatcher = new OutboxDispatcher({
    pool: database.pool,
    prisma: database.prisma,
    listeners,
    includeTopics: publisher === undefined,
    metrics,
    logger,
    maxAttempts: options.maxAttempts,
  });

  const loops = [
    new PollingLoop({
      name: 'outbox dispatcher',
      idleMs,
      maxBackoffMs: MAX_BACKOFF_MS,
      logger,
      pass: async () => (await dispatcher.dispatchOnce()) === dispatcher.batchSize,
    }),
    pruningLoop({
      name: 'outbox pruning',
      logger,
      prune: () => pruneOutbox(database.pool, config.outboxRetentionHours),
      describe: (pruned) => `pruned ${pruned} finished outbox events`,
    }),
  ];
  if (publisher !== undefined) {
    const relay = new OutboxRelay({ pool: database.pool, publisher, metrics });
    // Straight on while a pass found events: waiting after a partial batch would cap the rate under load.
    const pass = async () => (await relay.relayOnce()) > 0;
    loops.push(new PollingLoop({ name: 'outbox relay', idleMs, maxBackoffMs: MAX_BACKOFF_MS, logger, pass }));
  }
  for (const loop of loops) loop.start();

  const emitter = createEmitter({ mode: config.eventSchemaMode, logger, metrics });
  return {
    emit: emitter.emit,
    transaction: (work, transactionOptions) => emitter.transaction(database.prisma, work, transactionOptions),
    dispatcher,
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
      await publisher?.close();
    },
  };
}
