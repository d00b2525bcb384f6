import { type DomainDeps, LIMITS, requireText, type Tx } from '../kernel/index.ts';
import { releaseReservations, returnCommittedStock } from '../inventory/index.ts';
import { lockedOrder, moveOrder, type LockedOrder, type OrderWithLines } from '../orders/index.ts';
import { releaseOrderTenders, type CardRelease } from '../tenders/index.ts';

/**
 * The one way an order becomes CANCELLED, whoever cancels it (staff, the approval's expiry, the
 * payment deadline, the sweep of stale holds, the sweep of expiring authorizations): the order is
 * moved with its reason, the stock it still holds goes back to sale, a paid order's committed units
 * go back on the shelf, and its tenders are released (releaseOrderTenders): store credit and gift
 * cards credited back in this transaction, card tenders as `cards` says. With `cards: 'now'` the
 * gateway answers last, so a gateway that does not answer rolls the cancellation back and cancelling
 * again sends the same keys: run it with GATEWAY_TRANSACTION.
 *
 * Guarantees: the order, its stock and its tenders move together in the caller's transaction, or
 * none of them does; no tender is released twice (each release is keyed by the tender).
 */
export async function cancelLockedOrder(
  tx: Tx,
  deps: DomainDeps,
  order: LockedOrder,
  cancellation: { reason: string; cards: CardRelease },
): Promise<OrderWithLines> {
  const cancelled = await moveOrder(tx, deps, order, 'cancel', { cancelledAt: deps.now(), cancelReason: cancellation.reason });
  await releaseReservations(tx, deps, order.id, 'RELEASED');
  if (order.status === 'PLACED') await returnCommittedStock(tx, deps, order.id);
  await releaseOrderTenders(tx, deps, order.id, cancellation.cards);
  return cancelled;
}

/** Staff's cancellation (and the sweep of expiring authorizations'): its card tenders are voided or refunded at once. */
export async function cancelOrder(tx: Tx, deps: DomainDeps, orderId: bigint, reason: string): Promise<OrderWithLines> {
  const checked = requireText('reason', reason, LIMITS.cancelReason);
  return cancelLockedOrder(tx, deps, await lockedOrder(tx, orderId), { reason: checked, cards: 'now' });
}
