import type { InProcessEngineOptions, InProcessSweep } from '@shop/platform';
import { restartStrandedRefundsPass, runRefundRequest, SWEEP_PASSES, type SweepPass, type SweepPassDeps } from '@shop/domain/flows';
import { PERIODIC_WORKFLOWS, WORKFLOW_TYPES, type SweepWorkflowType } from '@shop/domain/workflows';
import type { ShopWorkflowInputs } from './workflow-triggers.ts';

/**
 * What the api runs itself without a workflow engine. Of the event-driven workflows, only a refund
 * request's refunds, once per payments.refund_requested (made, retried or sent to store credit by
 * staff, or emitted again by the reconciliation sweep): card refunds at the gateway, ledger credits,
 * each refund in its own transaction under its own key. A run that fails (a gateway that does not
 * answer), or a process that stops before it, leaves the request REQUESTED: the in-process
 * reconciliation sweep hands it back here later. The others wait on timers, which need an engine.
 */
export const IN_PROCESS_WORKFLOWS: InProcessEngineOptions<ShopWorkflowInputs, SweepPassDeps>['workflows'] = {
  [WORKFLOW_TYPES.refundExecution]: (context, { refundRequestId }, run) =>
    runRefundRequest(context, { requestId: BigInt(refundRequestId), run }),
};

/** The worker's passes, but for the reconciliation: without an engine nothing captures, so only stranded refund requests are run again. */
const IN_PROCESS_PASSES: Readonly<Record<SweepWorkflowType, SweepPass>> = {
  ...SWEEP_PASSES,
  [WORKFLOW_TYPES.reconcileStrandedMoney]: restartStrandedRefundsPass,
};

/** Every periodic sweep on its declared interval and batch, with the passes the worker's activities run. */
export const IN_PROCESS_SWEEPS: readonly InProcessSweep<SweepPassDeps>[] = PERIODIC_WORKFLOWS.map((periodic) => ({
  name: periodic.scheduleId,
  workflowType: periodic.workflowType,
  everyMs: periodic.everyMs,
  batch: periodic.batch,
  pass: IN_PROCESS_PASSES[periodic.workflowType],
}));
