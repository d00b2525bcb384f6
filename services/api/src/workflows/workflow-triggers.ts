import type { EventListener, EventName, EventPayloads, WorkflowEngine, WorkflowStart } from '@shop/platform';
import type { SweepPassDeps } from '@shop/domain/flows';
import { SIGNALS, WORKFLOW_TYPES, workflowIds } from '@shop/domain/workflows';

/** The input of each workflow the api starts (the worker's workflow functions take the same). */
export interface ShopWorkflowInputs {
  readonly [WORKFLOW_TYPES.orderLifecycle]: { readonly orderId: string };
  readonly [WORKFLOW_TYPES.customerApproval]: { readonly customerId: string };
  readonly [WORKFLOW_TYPES.refundExecution]: { readonly refundRequestId: string };
}

/** The api's engine: in-process, its workflows and sweeps run with the outbox's transaction and the domain's deps. */
export type ShopWorkflowEngine = WorkflowEngine<ShopWorkflowInputs, SweepPassDeps>;

type ShopWorkflowType = keyof ShopWorkflowInputs;

interface Trigger<N extends EventName, Type extends ShopWorkflowType> {
  /** The listener's name: deliveries are tracked by it. */
  readonly name: string;
  readonly event: N;
  readonly workflowType: Type;
  start(event: EventPayloads[N]): Omit<WorkflowStart<ShopWorkflowInputs, Type>, 'workflowType' | 'cause'>;
}

const trigger = <N extends EventName, Type extends ShopWorkflowType>(declared: Trigger<N, Type>) => declared;

/**
 * The event-driven workflows: each order's OrderLifecycleWorkflow, each business account's
 * CustomerApprovalWorkflow and each refund request's RefundExecutionWorkflow start from, and are
 * signalled by, the events the domain writes in the transaction of the change, so a change is never
 * lost between commit and the engine.
 */
const TRIGGERS = [
  trigger({
    name: 'order_lifecycle_workflow',
    event: 'order.status_changed',
    workflowType: WORKFLOW_TYPES.orderLifecycle,
    start: (event) => ({
      workflowId: workflowIds.orderLifecycle(event.order_id),
      input: { orderId: event.order_id },
      signal: SIGNALS.orderStatusChanged,
      signalArgs: [{ to: event.to }],
      rerunnable: false,
    }),
  }),
  trigger({
    name: 'customer_approval_workflow',
    event: 'customer.approval_changed',
    workflowType: WORKFLOW_TYPES.customerApproval,
    start: (event) => ({
      workflowId: workflowIds.customerApproval(event.customer_id),
      input: { customerId: event.customer_id },
      signal: SIGNALS.customerApprovalChanged,
      signalArgs: [{ approvalStatus: event.approval_status }],
      rerunnable: false,
    }),
  }),
  // A request ends when nothing is left to run, or when a refund failed for good; staff's retry (a new
  // event) starts a new run under the same id. A redelivered event starts a run that finds nothing to do.
  trigger({
    name: 'refund_execution_workflow',
    event: 'payments.refund_requested',
    workflowType: WORKFLOW_TYPES.refundExecution,
    start: (event) => ({
      workflowId: workflowIds.refundExecution(event.refund_request_id),
      input: { refundRequestId: event.refund_request_id },
      signal: SIGNALS.refundRequested,
      signalArgs: [],
      rerunnable: true,
    }),
  }),
];

/** Outbox listeners that start or signal, on `engine`, the workflows it runs; the events of the others start nothing. */
export function workflowTriggers(engine: ShopWorkflowEngine): EventListener[] {
  return TRIGGERS.filter((declared) => engine.runs(declared.workflowType)).map((declared): EventListener => listenerOf(engine, declared));
}

function listenerOf<N extends EventName, Type extends ShopWorkflowType>(
  engine: ShopWorkflowEngine,
  declared: Trigger<N, Type>,
): EventListener<N> {
  return {
    name: declared.name,
    event: declared.event,
    handle: (_tx, event) => engine.start({ ...declared.start(event), workflowType: declared.workflowType, cause: event.event_id }),
  };
}
