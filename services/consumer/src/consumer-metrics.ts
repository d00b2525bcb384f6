import { Counter, Gauge, type Registry } from 'prom-client';

export type HandledResult = 'done' | 'duplicate' | 'dead_lettered';

export interface PartitionLag {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
}

/** Reads the current lag of some groups; called at scrape time. */
export type LagSource = () => Promise<readonly PartitionLag[]>;

export interface ConsumerMetrics {
  readonly handled: Counter<'group' | 'topic' | 'result'>;
  readonly handlerFailures: Counter<'group' | 'topic'>;
  /** Adds a source of lag readings; returns the function that removes it. */
  addLagSource(source: LagSource): () => void;
}

const METRICS_BY_REGISTRY = new WeakMap<Registry, ConsumerMetrics>();

/** Registers the consumer metrics once per registry; the lag gauge asks its sources at scrape time. */
export function consumerMetrics(registry: Registry): ConsumerMetrics {
  const cached = METRICS_BY_REGISTRY.get(registry);
  if (cached !== undefined) return cached;

  const registers = [registry];
  const lagSources = new Set<LagSource>();
  new Gauge({
    name: 'kafka_consumergroup_lag',
    help: 'Messages not yet committed by the group: end offset minus committed offset, per partition',
    labelNames: ['group', 'topic', 'partition'],
    registers,
    async collect() {
      const readings = await Promise.all([...lagSources].map((source) => source()));
      this.reset();
      for (const { group, topic, partition, lag } of readings.flat()) this.set({ group, topic, partition: String(partition) }, lag);
    },
  });
  const metrics: ConsumerMetrics = {
    handled: new Counter({
      name: 'consumer_messages_handled_total',
      help: 'Messages finished by result: done (handler ran), duplicate (already handled), dead_lettered',
      labelNames: ['group', 'topic', 'result'],
      registers,
    }),
    handlerFailures: new Counter({
      name: 'consumer_handler_failures_total',
      help: 'Handler runs that failed (each retry counts)',
      labelNames: ['group', 'topic'],
      registers,
    }),
    addLagSource(source) {
      lagSources.add(source);
      return () => lagSources.delete(source);
    },
  };
  METRICS_BY_REGISTRY.set(registry, metrics);
  return metrics;
}
