import type { RefundRequestStatus, RunTransaction, WorkflowMetrics } from '@shop/platform';
import type { DomainDeps } from '../kernel/index.ts';
import { executeRefund, refundRequestView, type RefundFailure } from '../refunds/index.ts';
import { settleReturnOfRefundRequest } from '../returns/index.ts';
import { GATEWAY_TRANSACTION } from '../tenders/index.ts';
import { recordWorkflowFault, type WorkflowRun } from '../workflow-runs/index.ts';

/**
 * Running a refund request and settling the return it refunds (refunds, returns, tenders). Guarantees:
 * each refund moves money at most once whatever the retries (keyed per gateway attempt, per refund in
 * the ledger); a return becomes REFUNDED once all its refund requests succeeded.
 */

/** The fault of a refund the gateway refused as more than the tender captured: the shop's books and the gateway's disagree. */
export const REFUND_EXCEEDS_CAPTURED = 'refund_exceeds_captured';

/** What one run over a request's refunds left. */
export interface RefundRequestProgress {
  readonly status: RefundRequestStatus;
  /** Refunds the gateway accepted that have not settled yet: look again later. */
  readonly pending: number;
  /** Refunds that failed for good in this run (each leaves the request NEEDS_ATTENTION). */
  readonly failed: readonly RefundFailure[];
  /** Faults this run recorded (`refund_exceeds_captured`), for the metric. */
  readonly faults: number;
}

/**
 * One run over a request's refunds that are REQUESTED or PENDING, each in its own transaction. A
 * gateway that does not answer throws (the caller retries: what settled stays settled, the rest is
 * sent again under the same keys). A refusal of more than the tender captured is recorded as the
 * fault `refund_exceeds_captured` of `run`, and counted in workflow_faults_total.
 */
export async function runRefundRequest(
  { transaction, deps, metrics }: { transaction: RunTransaction; deps: DomainDeps; metrics: WorkflowMetrics },
  input: { requestId: bigint; run: WorkflowRun },
): Promise<RefundRequestProgress> {
  const open = await transaction((tx) =>
    tx.refund.findMany({
      where: { refundRequestId: input.requestId, status: { in: ['REQUESTED', 'PENDING'] } },
      orderBy: { id: 'asc' },
      select: { id: true },
    }),
  );
  const failed: RefundFailure[] = [];
  let faults = 0;
  for (const { id } of open) {
    const failure = await transaction((tx) => executeRefund(tx, deps, id), GATEWAY_TRANSACTION);
    if (failure === null) continue;
    failed.push(failure);
    if (failure.code === 'amount_exceeds_captured') {
      const details = {
        refundId: failure.refundId,
        tenderId: failure.tenderId,
        refundRequestId: input.requestId.toString(),
        refused: failure.message,
      };
      if (
        await transaction((tx) =>
          recordWorkflowFault(tx, input.run, {
            entityType: 'refund',
            entityId: failure.refundId,
            reason: REFUND_EXCEEDS_CAPTURED,
            details,
          }),
        )
      )
        faults += 1;
    }
  }
  // Its own transaction, holding no tender lock: a receipt locks its return before the order's tenders.
  await transaction((tx) => settleReturnOfRefundRequest(tx, deps, input.requestId));
  if (faults > 0) metrics.faults.inc({ workflow: input.run.workflow, reason: REFUND_EXCEEDS_CAPTURED }, faults);
  const view = await transaction((tx) => refundRequestView(tx, input.requestId));
  return { status: view.status, pending: view.refunds.filter((refund) => refund.status === 'PENDING').length, failed, faults };
}
