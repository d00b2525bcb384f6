import type { OrderStatus, RunTransaction } from '@shop/platform';
import { type DomainDeps, DomainError, type Tx } from '../kernel/index.ts';
import { orderMachine } from '../orders/index.ts';
import { cancelOrder } from './order-cancellation.ts';
import { workflowSettings } from '../settings/index.ts';
import { recordWorkflowFault, type WorkflowRun } from '../workflow-runs/index.ts';
import { WORKFLOW_TYPES } from '../workflows/index.ts';
import { GATEWAY_TRANSACTION, releaseTender, VOID_REFUSED } from '../tenders/index.ts';

/**
 * Voiding card authorizations before they lapse (tenders, orders). Guarantees: an unfulfilled order's
 * authorization is voided before it lapses while the gateway takes voids, and the order is cancelled
 * with it; a void refused for good is recorded once as a fault and not tried again.
 */

/** The reason an unfulfilled order is cancelled with when its authorization is voided. */
export const AUTHORIZATION_EXPIRING = 'the card authorization was about to expire and was voided';

interface ExpiringTender {
  readonly id: bigint;
  readonly orderId: bigint;
}

/**
 * AUTHORIZED card tenders whose authorization lapses after `asOf` and by `until`, and those of
 * cancelled orders whenever they lapse (an expiry cancels without the gateway and leaves them here),
 * most urgent first. Left out: a fulfilled (or completed) order's, which its lifecycle captures
 * (voiding it would give the goods away), an authorization already lapsed (the gateway refuses to void
 * it), and a tender whose void was refused for good before.
 */
function expiringTenders(tx: Tx, asOf: Date, until: Date, limit: number): Promise<ExpiringTender[]> {
  return tx.$queryRaw<ExpiringTender[]>`
    SELECT t.id, t.order_id AS "orderId"
    FROM payment_tenders t JOIN orders o ON o.id = t.order_id
    WHERE t.status = 'AUTHORIZED' AND t.kind = 'CARD'
      AND t.authorization_expires_at > ${asOf} AND (t.authorization_expires_at <= ${until} OR o.status = 'CANCELLED')
      AND o.status NOT IN ('FULFILLED', 'COMPLETED')
      AND NOT EXISTS (
        SELECT 1 FROM workflow_faults f
        WHERE f.workflow = ${WORKFLOW_TYPES.voidExpiringCardAuths} AND f.reason = ${VOID_REFUSED} AND f.entity_type = 'tender' AND f.entity_id = t.id::text)
    ORDER BY t.authorization_expires_at, t.id
    LIMIT ${limit}`;
}

/**
 * Voids one expiring authorization under `void:{tenderId}`, the key the cancellation uses, so a
 * cancel and the sweep never void twice. An order not fulfilled yet is cancelled with it (its stock
 * goes back, its other tenders are released, and order.status_changed tells its lifecycle); a
 * cancelled order's tender is only voided. The order is locked first, as a cancellation locks it.
 * False when someone else moved the tender or the order meanwhile.
 */
async function voidExpiringTender(tx: Tx, deps: DomainDeps, tender: ExpiringTender): Promise<boolean> {
  const [order] = await tx.$queryRaw<{ status: OrderStatus }[]>`SELECT status FROM orders WHERE id = ${tender.orderId} FOR UPDATE`;
  const current = await tx.paymentTender.findUnique({ where: { id: tender.id }, select: { status: true } });
  if (order === undefined || current?.status !== 'AUTHORIZED') return false;
  if (orderMachine.allows(order.status, 'cancel')) await cancelOrder(tx, deps, tender.orderId, AUTHORIZATION_EXPIRING);
  else if (order.status === 'CANCELLED') await releaseTender(tx, deps, tender.id);
  else return false;
  return true;
}

export interface ExpiringAuthorizationsPass {
  readonly voided: number;
  /** Voids the gateway refused for good in this pass, each recorded as a fault. */
  readonly refused: number;
  readonly more: boolean;
}

/**
 * One pass of VoidExpiringCardAuthsWorkflow over up to `limit` authorizations lapsing within the
 * `cardAuthorizationVoidMarginHours` setting of `asOf` or held for cancelled orders, each in its own transaction (the gateway answers
 * inside it). A gateway that does not answer throws, so the caller retries with the
 * same keys; a refusal for good is recorded as the fault `void_refused` and the pass goes on.
 */
export async function voidExpiringAuthorizations(
  transaction: RunTransaction,
  deps: DomainDeps,
  input: { asOf: Date; limit: number; run: WorkflowRun },
): Promise<ExpiringAuthorizationsPass> {
  const { asOf, limit, run } = input;
  // No gateway configured (the api without PAYMENT_GATEWAY_URL): nothing can be voided, and no refusal is the gateway's.
  if (deps.gateway === undefined) return { voided: 0, refused: 0, more: false };
  const tenders = await transaction(async (tx) => {
    const { cardAuthorizationVoidMarginHours } = await workflowSettings(tx);
    return expiringTenders(tx, asOf, new Date(asOf.getTime() + cardAuthorizationVoidMarginHours * 60 * 60 * 1000), limit);
  });
  let voided = 0;
  let refused = 0;
  for (const tender of tenders) {
    try {
      if (await transaction((tx) => voidExpiringTender(tx, deps, tender), GATEWAY_TRANSACTION)) voided += 1;
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === 'UNAVAILABLE') throw error;
      const details = { tenderId: tender.id.toString(), orderId: tender.orderId.toString(), refused: error.message };
      if (
        await transaction((tx) =>
          recordWorkflowFault(tx, run, { entityType: 'tender', entityId: tender.id.toString(), reason: VOID_REFUSED, details }),
        )
      )
        refused += 1;
    }
  }
  return { voided, refused, more: tenders.length === limit };
}
