import type { DomainDeps, Tx } from '../kernel/index.ts';
import { lockedReturn, moveReturnWithoutGoods, RETURN_DETAIL, type ReturnDetail } from '../returns/index.ts';
import { clawBackCreditInAdvance } from './credit-clawback.ts';

/**
 * Ending a return without (all of) its goods: staff cancel or close it, or the sweep expires it
 * when the goods did not come within the receipt window.
 *
 * Guarantees: the return's move and the clawback of a credit it got in advance happen in one
 * transaction, once per return (the clawback's key is the return's), never one without the other.
 */

/**
 * Closes a locked return whose goods, or the rest of them, will not come (CANCELLED, EXPIRED or
 * CLOSED): it holds only the units that arrived, and a credit in advance is clawed back for the
 * units missing.
 */
async function closeWithoutGoods(tx: Tx, deps: DomainDeps, rma: ReturnDetail, move: 'cancel' | 'expire' | 'close'): Promise<ReturnDetail> {
  const moved = await moveReturnWithoutGoods(tx, deps, rma, move);
  await clawBackCreditInAdvance(tx, deps, moved);
  return moved;
}

/**
 * DRAFT or REQUESTED -> CANCELLED: the units it held can be returned again. A return credited in
 * advance has its credit clawed back: its goods will not come.
 */
export async function cancelReturn(tx: Tx, deps: DomainDeps, returnId: bigint): Promise<ReturnDetail> {
  const rma = await lockedReturn(tx, returnId);
  return closeWithoutGoods(tx, deps, rma, 'cancel');
}

/**
 * PARTIALLY_RECEIVED -> CLOSED by staff, when the rest of the goods will not come: the missing units
 * can be returned again, what arrived stays refunded (each receipt requested its refund). A return
 * credited in advance has the credit for the missing units clawed back.
 */
export async function closeReturn(tx: Tx, deps: DomainDeps, returnId: bigint): Promise<ReturnDetail> {
  const rma = await lockedReturn(tx, returnId);
  return closeWithoutGoods(tx, deps, rma, 'close');
}

/**
 * Closes up to `limit` returns credited in advance still waiting for goods past their
 * `receipt_due_at` as of `asOf`, clawing back the credit for the units that did not arrive: a
 * REQUESTED one expires (nothing came), a PARTIALLY_RECEIVED one is CLOSED (it keeps the credit for
 * what came). Returns being received, cancelled or closed meanwhile are skipped (their row is
 * locked); a closed return is never selected again (GcExpiredRmaDraftsWorkflow's pass, after the drafts).
 */
export async function expireUnreceivedReturns(
  tx: Tx,
  deps: DomainDeps,
  input: { asOf: Date; limit: number },
): Promise<{ expired: number; more: boolean }> {
  const due = await tx.$queryRaw<{ id: bigint }[]>`
    SELECT id FROM return_authorizations
     WHERE status IN ('REQUESTED', 'PARTIALLY_RECEIVED') AND receipt_due_at <= ${input.asOf}
     ORDER BY receipt_due_at, id LIMIT ${input.limit} FOR UPDATE SKIP LOCKED`;
  for (const { id } of due) {
    const rma = await tx.returnAuthorization.findUniqueOrThrow({ where: { id }, include: RETURN_DETAIL });
    await closeWithoutGoods(tx, deps, rma, rma.status === 'REQUESTED' ? 'expire' : 'close');
  }
  return { expired: due.length, more: due.length === input.limit };
}
