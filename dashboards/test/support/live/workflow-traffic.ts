// Work for the worker, through the api where a shop would do it and through Temporal where an operator
// would: orders whose lifecycle completes, one whose workflow is cancelled, one paid and never
// fulfilled (a workflow fault), a lifecycle whose activity fails, and both sweeps run once.
import type { Client } from '@temporalio/client';
import { PERIODIC_WORKFLOWS, TASK_QUEUE, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';
import { waitFor } from '../../../../test/support/wait.ts';
import type { ShopApiClient } from './shop-api-client.ts';

/** Long enough for a lifecycle to start, short enough that the fault comes within seconds: 3.6 s. */
const FULFILMENT_WINDOW_HOURS = 0.001;

async function startedLifecycle(temporal: Client, orderId: string) {
  const handle = temporal.workflow.getHandle(workflowIds.orderLifecycle(orderId));
  await waitFor(
    () =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    30_000,
    `the lifecycle of order ${orderId} to start`,
  );
  return handle;
}

export async function driveWorkflows(api: ShopApiClient, temporal: Client): Promise<void> {
  await api.setSetting('workflows', { fulfilmentWindowHours: FULFILMENT_WINDOW_HOURS });
  const [paid, cancelledByShop, cancelledWorkflow] = await Promise.all([api.placeOrder(), api.placeOrder(), api.placeOrder()]);

  // Paid and never fulfilled: the lifecycle records a fulfilment_overdue fault once the window passes.
  await startedLifecycle(temporal, paid);
  await api.markOrderPaid(paid);

  // Cancelled by staff: the lifecycle sees it and completes.
  const completing = await startedLifecycle(temporal, cancelledByShop);
  await api.cancelOrder(cancelledByShop);

  // Cancelled in Temporal by an operator: the worker reports the run cancelled.
  const cancelling = await startedLifecycle(temporal, cancelledWorkflow);
  await cancelling.cancel();

  // A lifecycle for an order id that is no number: its first activity fails, and is retried.
  await temporal.workflow.start(WORKFLOW_TYPES.orderLifecycle, {
    taskQueue: TASK_QUEUE,
    workflowId: 'order-lifecycle-broken',
    args: [{ orderId: 'broken' }],
  });

  await Promise.all(PERIODIC_WORKFLOWS.map((periodic) => temporal.schedule.getHandle(periodic.scheduleId).trigger()));
  await completing.result();
  // A cancelled run's result rejects with the cancellation.
  await cancelling.result().catch(() => undefined);
}
