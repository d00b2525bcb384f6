import type { RunTransaction } from '@shop/platform';
import { type DomainDeps, DomainError } from '../kernel/index.ts';
import { recordWorkflowFault, type WorkflowRun } from '../workflow-runs/index.ts';
import { WORKFLOW_TYPES } from '../workflows/index.ts';
import { voidCartTender } from './cart-tenders.ts';
import { VOID_REFUSED } from './tenders.ts';

export interface IdleCartTendersPass {
  readonly voided: number;
  /** Voids the gateway refused for good in this pass, each recorded as the fault void_refused. */
  readonly refused: number;
  readonly more: boolean;
}

/**
 * One pass of GcExpiredCartTendersWorkflow: voids up to `limit` cart tenders that no order took and
 * whose hold ran out by `asOf` (cartTenderIdleMinutes after their authorization), oldest hold first,
 * each under `void:{tenderId}` in a transaction of its own that waits for the gateway. An order that
 * takes the tender meanwhile wins: the void finds it taken and leaves it. An authorization already
 * voided at the gateway counts as done. A gateway that does not answer throws, so the caller retries
 * with the same keys; a refusal for good is recorded as the fault `void_refused` on the tender, which
 * later passes leave alone. Only AUTHORIZED tenders can be waiting for an order: a capture needs one.
 */
export async function voidIdleCartTenders(
  transaction: RunTransaction,
  deps: DomainDeps,
  input: { asOf: Date; limit: number; run: WorkflowRun },
): Promise<IdleCartTendersPass> {
  const { asOf, limit, run } = input;
  // No gateway configured (the api without PAYMENT_GATEWAY_URL): nothing can be voided, and no refusal is the gateway's.
  if (deps.gateway === undefined) return { voided: 0, refused: 0, more: false };
  const idle = await transaction(
    (tx) => tx.$queryRaw<{ id: bigint; cartId: bigint | null }[]>`
      SELECT t.id, t.cart_id AS "cartId" FROM payment_tenders t
       WHERE t.status = 'AUTHORIZED' AND t.order_id IS NULL AND t.hold_expires_at <= ${asOf}
         AND NOT EXISTS (
           SELECT 1 FROM workflow_faults f
            WHERE f.workflow = ${WORKFLOW_TYPES.gcExpiredCartTenders} AND f.reason = ${VOID_REFUSED} AND f.entity_type = 'tender' AND f.entity_id = t.id::text)
       ORDER BY t.hold_expires_at, t.id
       LIMIT ${limit}`,
  );
  let voided = 0;
  let refused = 0;
  for (const tender of idle) {
    try {
      if (await voidCartTender(transaction, deps, tender.id)) voided += 1;
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === 'UNAVAILABLE') throw error;
      const details = { tenderId: tender.id.toString(), cartId: tender.cartId?.toString() ?? null, refused: error.message };
      if (
        await transaction((tx) =>
          recordWorkflowFault(tx, run, { entityType: 'tender', entityId: tender.id.toString(), reason: VOID_REFUSED, details }),
        )
      )
        refused += 1;
    }
  }
  return { voided, refused, more: idle.length === limit };
}
