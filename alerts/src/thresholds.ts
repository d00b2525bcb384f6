/**
 * The numbers the alerts fire at. The dashboards draw the same numbers as their thresholds, so what turns
 * a panel red is what pages someone. Spec section 1 gives the first five; the others are ours.
 */
export const THRESHOLDS = {
  /** Share of api requests answered 5xx (spec: API 5xx rate above 1%). */
  apiErrorRatio: 0.01,
  /** p95 of api response time, seconds (spec: < 500 ms). */
  apiLatencyP95Seconds: 0.5,
  /** Connections checked out of a process's pool over its size (spec: < 80%). */
  poolUtilization: 0.8,
  /** Failed workflow executions over finished ones (spec: < 1%). */
  workflowFailureRatio: 0.01,
  /** Messages a consumer group has not committed (spec: < 1000). */
  consumerLag: 1000,
  /** Server connections over PostgreSQL's max_connections: past this, new connections are about to be refused. */
  databaseConnectionRatio: 0.9,
  /** Tasks waiting in one Temporal task queue. */
  taskQueueBacklog: 100,
  /** Age of the oldest outbox event not yet published or dispatched, seconds: the relay normally takes well under one. */
  outboxOldestPendingSeconds: 300,
  /** Seconds since the admin search index last took a document while changes wait for it (spec: < 5 min lag). */
  adminSearchStaleSeconds: 300,
} as const;
