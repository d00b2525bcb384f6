/**
 * Series the dashboards and alerts use that no prom-client code of ours registers. Every other name must
 * be registered by the api, worker or consumer (dashboards/test/metric-names.test.ts checks both).
 */
export const EXTERNAL_METRICS = {
  /** Prometheus itself, for every target it scrapes. */
  prometheus: ['up'],
  /** postgres_exporter 0.17.1 (test/infra builds it); the test scrapes a real one and finds each. */
  postgresExporter: [
    'pg_settings_max_connections',
    'pg_stat_activity_count',
    'pg_stat_database_deadlocks',
    'pg_stat_database_numbackends',
    'pg_stat_database_tup_deleted',
    'pg_stat_database_tup_fetched',
    'pg_stat_database_tup_inserted',
    'pg_stat_database_tup_returned',
    'pg_stat_database_tup_updated',
    'pg_stat_database_xact_commit',
    'pg_stat_database_xact_rollback',
  ],
  /** redis_exporter 1.74.0 (test/infra builds it); the test scrapes a real one and finds each. */
  redisExporter: [
    'redis_commands_processed_total',
    'redis_config_maxclients',
    'redis_connected_clients',
    'redis_evicted_keys_total',
    'redis_expired_keys_total',
    'redis_keyspace_hits_total',
    'redis_keyspace_misses_total',
    'redis_memory_max_bytes',
    'redis_memory_used_bytes',
    'redis_rejected_connections_total',
    'redis_up',
  ],
  /**
   * The Temporal server's matching service (seen on the metrics port of the Temporal CLI 1.5.1 dev server,
   * server 1.29.1). Its `namespace` label is the Temporal namespace and `taskqueue` the task queue.
   */
  temporalServer: ['approximate_backlog_count', 'poll_success'],
  /**
   * The Temporal SDK's metrics, which the worker appends to its /metrics (services/worker/src/temporal-runtime.ts:
   * prefix temporal_, counters with _total, durations in seconds without a unit suffix). Names from the
   * SDK core's telemetry (@temporalio/core-bridge, sdk-core crates/sdk-core/src/telemetry/metrics.rs).
   */
  temporalSdk: [
    'temporal_activity_execution_latency_bucket',
    'temporal_activity_execution_latency_count',
    'temporal_activity_schedule_to_start_latency_bucket',
    'temporal_workflow_canceled_total',
    'temporal_workflow_completed_total',
    'temporal_workflow_task_schedule_to_start_latency_bucket',
    'temporal_worker_task_slots_available',
  ],
  /** The same SDK's failure counters: a series appears with the first failure, which the tests do not cause. */
  temporalSdkFailures: ['temporal_activity_execution_failed_total', 'temporal_workflow_failed_total'],
} as const;
