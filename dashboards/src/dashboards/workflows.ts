import { THRESHOLDS } from '../../../alerts/src/thresholds.ts';
import { labelVariable, perSecond, SHOP, shopDashboard, timeseries } from '../panels.ts';

const failed = perSecond('temporal_workflow_failed_total');
const completed = perSecond('temporal_workflow_completed_total');
const p95 = (histogram: string, by: readonly string[] = []) =>
  `histogram_quantile(0.95, sum by (${[...by, 'le'].join(', ')}) (rate(${histogram}_bucket{${SHOP}}[$__rate_interval])))`;

/** The Temporal server's series carry the Temporal namespace in `namespace`, not a Kubernetes one. */
const temporalNamespace = labelVariable('temporal_namespace', 'Temporal namespace', 'label_values(approximate_backlog_count, namespace)');

export function workflowsDashboard() {
  return shopDashboard(
    'shop-workflows',
    'Shop / Workflows',
    'Workflow and activity executions of the worker (the Temporal SDK metrics on its /metrics), workflow faults, and the task queue as the Temporal server sees it.',
  )
    .withVariable(temporalNamespace)
    .withPanel(
      timeseries({
        title: 'Workflow executions finished',
        description:
          'Workflow executions the worker finished per second, by result. Failed executions are orders or approvals whose process broke off: see the failure ratio.',
        unit: 'ops',
        queries: [
          { expr: completed, legend: 'completed' },
          { expr: failed, legend: 'failed' },
          { expr: perSecond('temporal_workflow_canceled_total'), legend: 'canceled' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Workflow failure ratio',
        description:
          'Failed workflow executions over finished ones. Above the red line (1%) for 5 minutes fires WorkflowFailureRateHigh: a workflow or an activity it depends on is broken.',
        unit: 'percentunit',
        alertThreshold: THRESHOLDS.workflowFailureRatio,
        queries: [{ expr: `${failed}\n  / (${failed} + (${completed} or ${failed} * 0))`, legend: 'failed' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Activity executions',
        description:
          'Activity executions per second by activity, and failed attempts (each is retried). Steady failures of one activity mean its dependency (database, broker) fails.',
        unit: 'ops',
        queries: [
          { expr: perSecond('temporal_activity_execution_latency_count', { by: 'activity_type' }), legend: '{{activity_type}}' },
          { expr: perSecond('temporal_activity_execution_failed_total', { by: 'activity_type' }), legend: '{{activity_type}} failed' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Activity execution time p95',
        description:
          'p95 of how long one activity attempt runs, by activity. A sweep that takes longer and longer works through a growing backlog of expired holds or carts.',
        unit: 's',
        queries: [{ expr: p95('temporal_activity_execution_latency', ['activity_type']), legend: '{{activity_type}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Schedule-to-start p95',
        description:
          'p95 of how long tasks waited in the task queue before the worker took them. Rising means the worker is saturated (too few slots or pods): timers and sweeps run late.',
        unit: 's',
        queries: [
          { expr: p95('temporal_workflow_task_schedule_to_start_latency'), legend: 'workflow tasks' },
          { expr: p95('temporal_activity_schedule_to_start_latency'), legend: 'activity tasks' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Task queue backlog',
        description:
          'Tasks waiting in the shop task queue, as the Temporal server counts them. Above the red line (100) for 10 minutes fires WorkflowTaskQueueBacklog. Workflow tasks waiting while no worker takes any fire WorkflowsStuck: the worker is down or not connected.',
        unit: 'short',
        alertThreshold: THRESHOLDS.taskQueueBacklog,
        queries: [
          {
            expr: 'sum by (taskqueue, task_type) (approximate_backlog_count{namespace="$temporal_namespace", taskqueue="shop"})',
            legend: '{{task_type}} tasks',
          },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Free task slots',
        description:
          'Task slots the worker has free, by kind. At zero the worker runs as many tasks as it can and new ones wait: schedule-to-start rises.',
        unit: 'short',
        queries: [{ expr: `sum by (worker_type) (temporal_worker_task_slots_available{${SHOP}})`, legend: '{{worker_type}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Workflow faults',
        description:
          'Faults workflows recorded (an assumption proved false, e.g. an order not fulfilled in time), by workflow and reason. Any fires WorkflowFaultsEmitted; staff list them with the GraphQL query workflowFaults (workflows.read).',
        unit: 'short',
        queries: [
          {
            expr: `sum by (workflow, reason) (increase(workflow_faults_total{${SHOP}}[$__rate_interval]))`,
            legend: '{{workflow}} {{reason}}',
          },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Rows swept',
        description:
          'Rows the periodic sweeps ended per second: stock holds expired, unpaid orders cancelled, abandoned carts deleted. Flat at zero for hours while carts are abandoned means the schedules do not run.',
        unit: 'suffix: rows/s',
        queries: [{ expr: perSecond('workflow_sweep_rows_total', { by: 'sweep, what' }), legend: '{{sweep}} {{what}}' }],
      }),
    );
}
