import { idString, type DomainDeps, type Tx } from '../kernel/index.ts';

/**
 * Emits shop.approvals.reminder_due.v1 for an order still waiting for approval (OrderApprovalWorkflow's
 * reminder); its expiry is when the order's stock hold runs out. True when it emitted.
 */
export async function remindOrderApproval(tx: Tx, deps: DomainDeps, orderId: bigint): Promise<boolean> {
  const [order] = await tx.$queryRaw<{ channel_id: bigint; placed_at: Date; hold_expires_at: Date | null }[]>`
    SELECT o.channel_id, o.placed_at,
           (SELECT min(r.expires_at) FROM inventory_reservations r WHERE r.order_id = o.id AND r.state = 'HELD') AS hold_expires_at
      FROM orders o WHERE o.id = ${orderId} AND o.status = 'AWAITING_APPROVAL'`;
  if (order?.hold_expires_at == null) return false;
  await deps.emit(tx, 'shop.approvals.reminder_due.v1', {
    approval: 'order',
    subject_id: idString(orderId),
    channel_id: idString(order.channel_id),
    requested_at: order.placed_at.toISOString(),
    expires_at: order.hold_expires_at.toISOString(),
    occurred_at: deps.now().toISOString(),
  });
  return true;
}
