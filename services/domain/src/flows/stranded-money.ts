import { type DomainDeps, idString, type Tx } from '../kernel/index.ts';
import { CAPTURE_REFUSED } from '../workflows/index.ts';

/**
 * Restarting money work whose starting event was lost (refunds, tenders, orders). Guarantees: a refund
 * request or a capture left waiting past STRANDED_AFTER_MINUTES is started again by the next run;
 * starting twice is harmless because every movement it leads to is keyed.
 */

/**
 * A refund request still REQUESTED, or a fulfilled order's card still only AUTHORIZED, this long
 * after its last change is taken as stranded: the event that should have started its workflow was
 * parked (the engine was down past the outbox's retries). Well past the few seconds the workflows
 * normally take, so a request or capture going its normal way is left alone.
 */
export const STRANDED_AFTER_MINUTES = 10;

export interface StrandedPass {
  readonly restarted: number;
  readonly more: boolean;
}

interface StrandedInput {
  readonly asOf: Date;
  readonly limit: number;
}

const strandedSince = (asOf: Date): Date => new Date(asOf.getTime() - STRANDED_AFTER_MINUTES * 60_000);

/**
 * Emits payments.refund_requested again for up to `limit` refund requests left REQUESTED since
 * before `asOf` − STRANDED_AFTER_MINUTES: its listener starts (or nudges) the request's
 * RefundExecutionWorkflow, or runs it in-process without an engine, every refund under its own key.
 * Each request's updated_at moves to now, so the rest of the run (which reads as of `asOf`) passes it
 * by, and the next run looks at it again only once it has been stranded as long once more.
 */
export async function restartStrandedRefundRequests(tx: Tx, deps: DomainDeps, { asOf, limit }: StrandedInput): Promise<StrandedPass> {
  const stranded = await tx.$queryRaw<{ id: bigint; orderId: bigint }[]>`
    SELECT id, order_id AS "orderId" FROM refund_requests
     WHERE status = 'REQUESTED' AND updated_at <= ${strandedSince(asOf)}
     ORDER BY id
     LIMIT ${limit}
       FOR UPDATE SKIP LOCKED`;
  for (const request of stranded) {
    await tx.$executeRaw`UPDATE refund_requests SET updated_at = ${deps.now()} WHERE id = ${request.id}`;
    await deps.emit(tx, 'payments.refund_requested', { refund_request_id: idString(request.id), order_id: idString(request.orderId) });
  }
  return { restarted: stranded.length, more: stranded.length === limit };
}

/**
 * Emits order.status_changed (from and to its status) again for the orders fulfilled (or since completed) before `asOf` −
 * STRANDED_AFTER_MINUTES whose card tender is still AUTHORIZED and capturable (its authorization not
 * lapsed by `asOf`, no capture_refused recorded on the order): its listener signals (or starts) the
 * order's OrderLifecycleWorkflow, which re-reads the order and captures under capture:<tenderId>
 * (a completed order too: its lifecycle may still wait in PLACED when both signals parked).
 * Up to `limit` tenders a pass, their updated_at moved to now as the refund requests' above.
 */
export async function restartStrandedCaptures(tx: Tx, deps: DomainDeps, { asOf, limit }: StrandedInput): Promise<StrandedPass> {
  const since = strandedSince(asOf);
  const stranded = await tx.$queryRaw<{ id: bigint; orderId: bigint; orderNumber: string; orderStatus: 'FULFILLED' | 'COMPLETED' }[]>`
    SELECT t.id, o.id AS "orderId", o.number AS "orderNumber", o.status::text AS "orderStatus" FROM payment_tenders t JOIN orders o ON o.id = t.order_id
     WHERE t.status = 'AUTHORIZED' AND t.kind = 'CARD' AND t.authorization_expires_at > ${asOf} AND t.updated_at <= ${since}
       AND o.status IN ('FULFILLED', 'COMPLETED') AND o.fulfilled_at <= ${since}
       AND NOT EXISTS (SELECT 1 FROM workflow_faults f WHERE f.reason = ${CAPTURE_REFUSED} AND f.entity_type = 'order' AND f.entity_id = o.id::text)
     ORDER BY t.id
     LIMIT ${limit}
       FOR UPDATE OF t SKIP LOCKED`;
  const orders = new Map(stranded.map((tender) => [tender.orderId, tender]));
  await tx.$executeRaw`UPDATE payment_tenders SET updated_at = ${deps.now()} WHERE id = ANY(${stranded.map((tender) => tender.id)}::bigint[])`;
  for (const [orderId, { orderNumber, orderStatus }] of orders) {
    await deps.emit(tx, 'order.status_changed', {
      order_id: idString(orderId),
      order_number: orderNumber,
      from: orderStatus,
      to: orderStatus,
      reason: 'reconciliation: the card is still to be captured',
      occurred_at: deps.now().toISOString(),
    });
  }
  return { restarted: orders.size, more: stranded.length === limit };
}
