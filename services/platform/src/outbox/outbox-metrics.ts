import { Counter, Gauge, type Registry } from 'prom-client';
import type pg from 'pg';

export interface OutboxMetrics {
  readonly published: Counter<'topic'>;
  readonly publishFailures: Counter;
  readonly deliveries: Counter<'listener' | 'result'>;
  readonly listenerFailures: Counter<'listener'>;
  readonly schemaWarnings: Counter<'topic'>;
}

const BACKLOG_SQL = `
  SELECT CASE WHEN partition_key IS NULL THEN 'in_process' ELSE 'topic' END AS kind,
         count(*)::int AS pending,
         coalesce(extract(epoch FROM now() - min(created_at)), 0)::float AS oldest_age_seconds
    FROM outbox_events
   WHERE (partition_key IS NOT NULL AND published_at IS NULL)
      OR (partition_key IS NULL AND dispatched_at IS NULL)
   GROUP BY 1`;

/** Registers the outbox metrics once per registry; the backlog gauges query the database at scrape time. */
export function outboxMetrics(registry: Registry, pool: pg.Pool): OutboxMetrics {
  const cached = METRICS_BY_REGISTRY.get(registry);
  if (cached !== undefined) return cached;

  const registers = [registry];
  // Both backlog gauges are collected together at each scrape: they share one query. Unreadable (the
  // database down): no sample this scrape, rather than no /metrics at all, which would hide every other
  // metric of the process (the api's 5xx answers among them) for as long as the database is down.
  let backlog: Promise<Array<{ kind: string; pending: number; oldest_age_seconds: number }> | undefined> | undefined;
  const readBacklog = () =>
    (backlog ??= pool
      .query<{ kind: string; pending: number; oldest_age_seconds: number }>(BACKLOG_SQL)
      .then(
        ({ rows }) => rows,
        () => undefined,
      )
      .finally(() => (backlog = undefined)));
  new Gauge({
    name: 'outbox_pending_events',
    help: 'Events written but not yet published (topic) or handed to every listener (in_process)',
    labelNames: ['kind'],
    registers,
    // The database's backlog, which every api process of a pod reads alike: summing them would multiply it.
    aggregator: 'max',
    async collect() {
      this.reset();
      const rows = await readBacklog();
      if (rows === undefined) return;
      for (const kind of ['topic', 'in_process']) this.set({ kind }, rows.find((row) => row.kind === kind)?.pending ?? 0);
    },
  });
  new Gauge({
    name: 'outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest event still waiting, 0 when none waits',
    labelNames: ['kind'],
    registers,
    aggregator: 'max',
    async collect() {
      this.reset();
      const rows = await readBacklog();
      if (rows === undefined) return;
      for (const kind of ['topic', 'in_process']) {
        this.set({ kind }, rows.find((row) => row.kind === kind)?.oldest_age_seconds ?? 0);
      }
    },
  });
  const metrics: OutboxMetrics = {
    published: new Counter({ name: 'outbox_published_total', help: 'Events published to the broker', labelNames: ['topic'], registers }),
    publishFailures: new Counter({ name: 'outbox_publish_failures_total', help: 'Relay passes whose publish failed', registers }),
    deliveries: new Counter({
      name: 'outbox_listener_deliveries_total',
      help: 'In-process listener runs by result: done, retry, parked',
      labelNames: ['listener', 'result'],
      registers,
    }),
    listenerFailures: new Counter({
      name: 'outbox_listener_failures_total',
      help: 'Deliveries parked after a listener failed too many times',
      labelNames: ['listener'],
      registers,
    }),
    schemaWarnings: new Counter({
      name: 'event_schema_validation_warnings_total',
      help: 'Events emitted with a payload that does not match their schema (warn mode)',
      labelNames: ['topic'],
      registers,
    }),
  };
  METRICS_BY_REGISTRY.set(registry, metrics);
  return metrics;
}

const METRICS_BY_REGISTRY = new WeakMap<Registry, OutboxMetrics>();

const PARKED_SQL = "SELECT listener, count(*)::int AS parked FROM outbox_deliveries WHERE status = 'parked' GROUP BY listener";

/**
 * `outbox_parked_deliveries{listener}`: deliveries given up after their retries and not yet replayed, read
 * at scrape time. Registered by the process that dispatches (startOutbox), once per registry: each of its
 * listeners has a sample, 0 when none is parked, so the series exists before anything goes wrong.
 */
export function registerParkedDeliveriesGauge(registry: Registry, pool: pg.Pool, listenerNames: readonly string[]): void {
  if (registry.getSingleMetric('outbox_parked_deliveries') !== undefined) return;
  new Gauge({
    name: 'outbox_parked_deliveries',
    help: 'Listener deliveries parked after failing on each of their retries, waiting for npm run outbox:replay',
    labelNames: ['listener'],
    registers: [registry],
    aggregator: 'max',
    async collect() {
      this.reset();
      // Unreadable (the database down): no sample this scrape, as for the backlog gauges.
      const rows = await pool.query<{ listener: string; parked: number }>(PARKED_SQL).then(
        ({ rows }) => rows,
        () => undefined,
      );
      if (rows === undefined) return;
      for (const listener of listenerNames) this.set({ listener }, 0);
      for (const row of rows) this.set({ listener: row.listener }, row.parked);
    },
  });
}
