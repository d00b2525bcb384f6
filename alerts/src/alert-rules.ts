/**
 * Every alert rule, once. generate-rules.ts writes them as a plain Prometheus rules file and as a
 * PrometheusRule; the runbooks are alerts/runbooks/<alert>.md.
 *
 * Series are grouped by the `namespace` and `shop` target labels (see alerts/README.md), except the
 * Temporal server's, which belong to no Shop: they carry the Temporal namespace and the task queue.
 */
import { THRESHOLDS } from './thresholds.ts';

export type Severity = 'critical' | 'warning';

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  /** How long the expression must hold before the alert fires (Prometheus duration). */
  readonly for: string;
  readonly severity: Severity;
  readonly summary: string;
  /** Prometheus template text; carries the live value. */
  readonly description: string;
  /** Where on-call confirms it: a dashboard uid and the title of one of its panels. */
  readonly panel: { readonly dashboard: string; readonly title: string };
}

export interface AlertGroup {
  readonly name: string;
  readonly rules: readonly AlertRule[];
}

const SHOP = 'namespace, shop';
const WHERE = '{{ $labels.namespace }}/{{ $labels.shop }}';
const rate = (selector: string, window: string) => `sum by (${SHOP}) (rate(${selector}[${window}]))`;
// Summaries and descriptions quote the thresholds, so they follow any change of thresholds.ts.
const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;
const API_ERRORS = percent(THRESHOLDS.apiErrorRatio);
const API_P95 = `${THRESHOLDS.apiLatencyP95Seconds * 1000} ms`;
const POOL = percent(THRESHOLDS.poolUtilization);
const CONNECTIONS = percent(THRESHOLDS.databaseConnectionRatio);
const WORKFLOW_FAILURES = percent(THRESHOLDS.workflowFailureRatio);
const OUTBOX_WAIT = `${THRESHOLDS.outboxOldestPendingSeconds / 60} minutes`;
const SEARCH_STALE = `${THRESHOLDS.adminSearchStaleSeconds / 60} minutes`;

const api: AlertGroup = {
  name: 'shop.api',
  rules: [
    {
      alert: 'ApiHighErrorRate',
      expr: `${rate('http_requests_total{status=~"5.."}', '5m')}\n  / ${rate('http_requests_total', '5m')}\n  > ${THRESHOLDS.apiErrorRatio}`,
      for: '5m',
      severity: 'critical',
      summary: `The api answers more than ${API_ERRORS} of requests with a 5xx`,
      description: `{{ $value | humanizePercentage }} of api requests of ${WHERE} answered 5xx over the last 5 minutes (threshold ${API_ERRORS}).`,
      panel: { dashboard: 'shop-api', title: 'Error rate by status' },
    },
    {
      alert: 'ApiLatencyHigh',
      expr: `histogram_quantile(0.95, sum by (${SHOP}, le) (rate(http_request_duration_seconds_bucket[5m])))\n  > ${THRESHOLDS.apiLatencyP95Seconds}`,
      for: '10m',
      severity: 'warning',
      summary: `The api p95 response time is above ${API_P95}`,
      description: `The p95 response time of the api of ${WHERE} is {{ $value | humanizeDuration }} (threshold ${API_P95}).`,
      panel: { dashboard: 'shop-api', title: 'Latency p50 / p95 / p99' },
    },
  ],
};

const database: AlertGroup = {
  name: 'shop.database',
  rules: [
    {
      alert: 'DatabasePoolSaturated',
      expr: `max by (${SHOP}, service) (db_pool_connections_in_use / db_pool_connections_max)\n  > ${THRESHOLDS.poolUtilization}`,
      for: '5m',
      severity: 'warning',
      summary: `A database connection pool is more than ${POOL} in use`,
      description: `The busiest {{ $labels.service }} process of ${WHERE} has {{ $value | humanizePercentage }} of its pool's connections checked out (threshold ${POOL}).`,
      panel: { dashboard: 'shop-database', title: 'Pool utilization' },
    },
    {
      alert: 'DatabasePoolExhausted',
      expr: `max by (${SHOP}, service) (db_pool_requests_waiting) >= 1`,
      for: '2m',
      severity: 'critical',
      summary: 'Queries wait for a database connection: a pool is exhausted',
      description: `{{ $value }} queries of a {{ $labels.service }} process of ${WHERE} are waiting for a free pool connection, and have been for 2 minutes.`,
      panel: { dashboard: 'shop-database', title: 'Queries waiting for a connection' },
    },
    {
      alert: 'DatabaseConnectionsExhausted',
      expr: `sum by (${SHOP}) (pg_stat_database_numbackends)\n  / max by (${SHOP}) (pg_settings_max_connections)\n  > ${THRESHOLDS.databaseConnectionRatio}`,
      for: '5m',
      severity: 'critical',
      summary: 'PostgreSQL is close to max_connections',
      description: `The PostgreSQL server of ${WHERE} holds {{ $value | humanizePercentage }} of its max_connections (threshold ${CONNECTIONS}): new connections are about to be refused.`,
      panel: { dashboard: 'shop-database', title: 'Server connections' },
    },
  ],
};

// The Temporal server's own metrics; its `namespace` label is the Temporal namespace (scraped with honor_labels).
const TASK_QUEUE = 'namespace, taskqueue, task_type';

/**
 * The shared Temporal server's rules: they belong to no Shop, so the Shop operator leaves them out of the
 * rules it provisions per Shop, and generate-rules.ts also writes them alone, to be installed once.
 */
export const TEMPORAL_SERVER_GROUP: AlertGroup = {
  name: 'temporal.server',
  rules: [
    {
      alert: 'WorkflowTaskQueueBacklog',
      expr: `sum by (${TASK_QUEUE}) (approximate_backlog_count) > ${THRESHOLDS.taskQueueBacklog}`,
      for: '10m',
      severity: 'warning',
      summary: 'Tasks pile up in a Temporal task queue',
      description: `{{ $value }} {{ $labels.task_type }} tasks wait in task queue {{ $labels.taskqueue }} of Temporal namespace {{ $labels.namespace }} (threshold ${THRESHOLDS.taskQueueBacklog}).`,
      panel: { dashboard: 'shop-workflows', title: 'Task queue backlog' },
    },
    {
      alert: 'WorkflowsStuck',
      expr:
        `sum by (${TASK_QUEUE}) (approximate_backlog_count{task_type="Workflow"}) > 0\n` +
        `unless on (${TASK_QUEUE})\n` +
        // poll_success counts every task a worker took, from the backlog or handed over directly.
        `  sum by (${TASK_QUEUE}) (increase(poll_success{task_type="Workflow"}[10m])) > 0`,
      for: '5m',
      severity: 'critical',
      summary: 'Workflows wait and no worker takes their tasks',
      description: `{{ $value }} workflow tasks wait in task queue {{ $labels.taskqueue }} of Temporal namespace {{ $labels.namespace }} and no worker has taken one for 10 minutes: the workflows stay Running without progress.`,
      panel: { dashboard: 'shop-workflows', title: 'Task queue backlog' },
    },
  ],
};

const workflows: AlertGroup = {
  name: 'shop.workflows',
  rules: [
    {
      alert: 'WorkflowFailureRateHigh',
      // `or … * 0`: with no completion yet the completed series does not exist, and the ratio must still be 100%.
      expr:
        `${rate('temporal_workflow_failed_total', '15m')}\n` +
        `  / (${rate('temporal_workflow_failed_total', '15m')} + (${rate('temporal_workflow_completed_total', '15m')} or ${rate('temporal_workflow_failed_total', '15m')} * 0))\n` +
        `  > ${THRESHOLDS.workflowFailureRatio}`,
      for: '5m',
      severity: 'warning',
      summary: `More than ${WORKFLOW_FAILURES} of workflow executions fail`,
      description: `{{ $value | humanizePercentage }} of the workflow executions the worker of ${WHERE} finished over 15 minutes failed (threshold ${WORKFLOW_FAILURES}).`,
      panel: { dashboard: 'shop-workflows', title: 'Workflow failure ratio' },
    },
    {
      alert: 'WorkflowFaultsEmitted',
      // A series is born at its first fault, which increase() cannot see: a series newer than the window counts whole.
      expr: `sum by (${SHOP}, workflow, reason) ((increase(workflow_faults_total[15m]) > 0) or (workflow_faults_total unless workflow_faults_total offset 15m)) > 0`,
      for: '0m',
      severity: 'warning',
      summary: 'A workflow recorded a fault',
      description: `{{ $labels.workflow }} recorded {{ $value | humanize }} faults with reason {{ $labels.reason }} in ${WHERE} over 15 minutes (GraphQL query workflowFaults, permission workflows.read).`,
      panel: { dashboard: 'shop-workflows', title: 'Workflow faults' },
    },
  ],
};

const events: AlertGroup = {
  name: 'shop.events',
  rules: [
    {
      alert: 'ConsumerLagHigh',
      expr: `sum by (${SHOP}, group) (kafka_consumergroup_lag) > ${THRESHOLDS.consumerLag}`,
      for: '5m',
      severity: 'warning',
      summary: `A consumer group is more than ${THRESHOLDS.consumerLag} messages behind`,
      description: `Consumer group {{ $labels.group }} of ${WHERE} has {{ $value }} messages not yet committed (threshold ${THRESHOLDS.consumerLag}).`,
      panel: { dashboard: 'shop-broker', title: 'Consumer lag by group' },
    },
    {
      alert: 'ConsumerLagIncreasing',
      expr: `sum by (${SHOP}, group) (deriv(kafka_consumergroup_lag[15m])) > 0`,
      for: '15m',
      severity: 'warning',
      summary: 'A consumer group falls further behind',
      description: `The lag of consumer group {{ $labels.group }} of ${WHERE} has grown for 30 minutes, now by {{ $value | humanize }} messages per second.`,
      panel: { dashboard: 'shop-broker', title: 'Consumer lag by group' },
    },
    {
      alert: 'EventSchemaValidationWarnings',
      expr: `sum by (${SHOP}, topic) (increase(event_schema_validation_warnings_total[15m])) > 0`,
      for: '0m',
      severity: 'warning',
      summary: 'Events were emitted with a payload that does not match their schema',
      description: `{{ $value | humanize }} events of {{ $labels.topic }} in ${WHERE} did not match their schema over 15 minutes and were published anyway (EVENT_SCHEMA_MODE=warn).`,
      panel: { dashboard: 'shop-broker', title: 'Schema validation warnings' },
    },
    {
      alert: 'OutboxEventsWaiting',
      expr: `max by (${SHOP}, kind) (outbox_oldest_pending_age_seconds) > ${THRESHOLDS.outboxOldestPendingSeconds}`,
      for: '5m',
      severity: 'warning',
      summary: `Outbox events wait more than ${OUTBOX_WAIT} to be published or dispatched`,
      description: `The oldest {{ $labels.kind }} outbox event of ${WHERE} has waited {{ $value | humanizeDuration }} (threshold ${OUTBOX_WAIT}).`,
      panel: { dashboard: 'shop-broker', title: 'Outbox oldest pending event' },
    },
    {
      alert: 'OutboxDeliveriesParked',
      // A gauge of what is parked now, so the alert lasts until someone replays the deliveries.
      expr: `max by (${SHOP}, listener) (outbox_parked_deliveries) >= 1`,
      for: '0m',
      severity: 'warning',
      summary: 'An in-process listener gave up on events after its retries; they wait for a replay',
      description: `{{ $value | humanize }} deliveries of listener {{ $labels.listener }} of ${WHERE} are parked after failing on each of their retries: their effects are missing until npm run outbox:replay runs them.`,
      panel: { dashboard: 'shop-broker', title: 'Parked deliveries' },
    },
  ],
};

const search: AlertGroup = {
  name: 'shop.search',
  rules: [
    {
      alert: 'AdminSearchIndexStale',
      // Only while events for the index wait (the shop.search group's lag): a quiet Shop writes nothing and is
      // not stale. The `for` lets the first event after a quiet hour be indexed before anyone is paged.
      expr: `(\n  time() - max by (${SHOP}) (search_last_indexed_timestamp_seconds{index="admin"})\n    and on (${SHOP}) sum by (${SHOP}) (kafka_consumergroup_lag{group="shop.search"}) > 0\n)\n  > ${THRESHOLDS.adminSearchStaleSeconds}`,
      for: '2m',
      severity: 'warning',
      summary: `The admin search index is more than ${SEARCH_STALE} behind`,
      description: `The admin search index of ${WHERE} took no document for {{ $value | humanizeDuration }} while events for it wait in the shop.search consumer group (threshold ${SEARCH_STALE}): staff search shows orders and customers as they were.`,
      panel: { dashboard: 'shop-broker', title: 'Admin search index age' },
    },
  ],
};

export const ALERT_GROUPS: readonly AlertGroup[] = [api, database, TEMPORAL_SERVER_GROUP, workflows, events, search];

export const ALERT_RULES: readonly AlertRule[] = ALERT_GROUPS.flatMap((group) => group.rules);
