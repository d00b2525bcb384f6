import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { EventListener } from '@shop/platform';
import { SIGNALS, TASK_QUEUE, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';

/**
 * The dispatcher hands events to listeners one at a time: an engine that does not answer must not
 * hold back attribution and the other listeners for long. The outbox retries a call that timed out.
 */
const CALL_DEADLINE_MS = 5_000;

interface SignalWithStart {
  readonly workflowType: string;
  readonly workflowId: string;
  readonly args: unknown[];
  readonly signal: string;
  readonly signalArgs: unknown[];
  /** REJECT_DUPLICATE unless the workflow is meant to run again under its id (a refund request staff act on after it ended). */
  readonly reusePolicy?: WorkflowIdReusePolicy;
}

/**
 * Starts the workflow with its first signal, or only signals it when it runs. The id comes from the
 * entity and, unless `reusePolicy` allows it, a finished workflow's id is never reused, so a redelivered
 * event never starts a second one: against a finished workflow the call is refused, and that is the answer we want.
 */
async function signalWithStart(client: Client, start: SignalWithStart): Promise<void> {
  try {
    await client.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
      client.workflow.signalWithStart(start.workflowType, {
        workflowId: start.workflowId,
        taskQueue: TASK_QUEUE,
        args: start.args,
        signal: start.signal,
        signalArgs: start.signalArgs,
        workflowIdReusePolicy: start.reusePolicy ?? WorkflowIdReusePolicy.REJECT_DUPLICATE,
      }),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * Outbox listeners that drive the event-driven workflows: each order's OrderLifecycleWorkflow, each
 * business account's CustomerApprovalWorkflow and each refund request's RefundExecutionWorkflow start from, and are signalled by, the events the domain
 * writes in the transaction of the change, so a change is never lost between commit and Temporal.
 */
export function workflowStarters(client: Client): EventListener[] {
  const orderLifecycle: EventListener<'order.status_changed'> = {
    name: 'order_lifecycle_workflow',
    event: 'order.status_changed',
    handle: (_tx, event) =>
      signalWithStart(client, {
        workflowType: WORKFLOW_TYPES.orderLifecycle,
        workflowId: workflowIds.orderLifecycle(event.order_id),
        args: [{ orderId: event.order_id }],
        signal: SIGNALS.orderStatusChanged,
        signalArgs: [{ to: event.to }],
      }),
  };
  const customerApproval: EventListener<'customer.approval_changed'> = {
    name: 'customer_approval_workflow',
    event: 'customer.approval_changed',
    handle: (_tx, event) =>
      signalWithStart(client, {
        workflowType: WORKFLOW_TYPES.customerApproval,
        workflowId: workflowIds.customerApproval(event.customer_id),
        args: [{ customerId: event.customer_id }],
        signal: SIGNALS.customerApprovalChanged,
        signalArgs: [{ approvalStatus: event.approval_status }],
      }),
  };
  // A request ends when nothing is left to run, or when a refund failed for good; staff's retry (a new
  // event) starts a new run under the same id. A redelivered event starts a run that finds nothing to do.
  const refundExecution: EventListener<'payments.refund_requested'> = {
    name: 'refund_execution_workflow',
    event: 'payments.refund_requested',
    handle: (_tx, event) =>
      signalWithStart(client, {
        workflowType: WORKFLOW_TYPES.refundExecution,
        workflowId: workflowIds.refundExecution(event.refund_request_id),
        args: [{ refundRequestId: event.refund_request_id }],
        signal: SIGNALS.refundRequested,
        signalArgs: [],
        reusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      }),
  };
  return [orderLifecycle, customerApproval, refundExecution];
}
