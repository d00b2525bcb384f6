import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Why events were refused with a 4xx or 503 (nothing of the request is stored). */
export type RejectReason =
  | 'invalid_body'
  | 'missing_session_id'
  | 'session_id_too_long'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'buffer_full'
  | 'shutting_down';

/** Why events that were answered 202 were not written after all. */
export type DropReason = 'refused_by_database' | 'shutdown_timeout';

export interface TrackingMetrics {
  readonly received: Counter<'event_type'>;
  readonly written: Counter;
  readonly rejected: Counter<'reason'>;
  readonly dropped: Counter<'reason'>;
  readonly bufferSize: Gauge;
  readonly flushDuration: Histogram<'result'>;
  readonly ignoredTokens: Counter<'reason'>;
  readonly repeatCheckFallbacks: Counter<'reason'>;
}

const METRICS_BY_REGISTRY = new WeakMap<Registry, TrackingMetrics>();

/** The tracking metrics, registered once per registry (an app built twice over one platform shares them). */
export function trackingMetrics(registry: Registry): TrackingMetrics {
  const cached = METRICS_BY_REGISTRY.get(registry);
  if (cached !== undefined) return cached;
  const registers = [registry];
  const metrics: TrackingMetrics = {
    received: new Counter({
      name: 'tracking_events_received_total',
      help: 'Tracking events accepted by POST /track (answered 202 and queued for writing)',
      labelNames: ['event_type'],
      registers,
    }),
    written: new Counter({ name: 'tracking_events_written_total', help: 'Tracking events written to tracking_events', registers }),
    rejected: new Counter({
      name: 'tracking_events_rejected_total',
      help: 'Tracking events refused by POST /track, by reason (nothing of a refused request is stored)',
      labelNames: ['reason'],
      registers,
    }),
    dropped: new Counter({
      name: 'tracking_events_dropped_total',
      help: 'Accepted tracking events that were not written, by reason',
      labelNames: ['reason'],
      registers,
    }),
    bufferSize: new Gauge({ name: 'tracking_buffer_events', help: 'Tracking events accepted and not yet written', registers }),
    flushDuration: new Histogram({
      name: 'tracking_flush_duration_seconds',
      help: 'Time to write one batch of tracking events, by result (ok or failed)',
      labelNames: ['result'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    ignoredTokens: new Counter({
      name: 'tracking_ignored_tokens_total',
      help: 'Beacons whose Authorization header was not used (recorded anonymous), by reason',
      labelNames: ['reason'],
      registers,
    }),
    repeatCheckFallbacks: new Counter({
      name: 'tracking_repeat_check_fallbacks_total',
      help: 'Clicks whose is_repeat was decided without the cache (cache_error): by the batch INSERT alone',
      labelNames: ['reason'],
      registers,
    }),
  };
  METRICS_BY_REGISTRY.set(registry, metrics);
  return metrics;
}
