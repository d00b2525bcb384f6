import type { OrderStatus } from '@shop/platform';
import { type DomainDeps, DomainError, type Tx } from '../kernel/index.ts';
import { commitReservations } from '../inventory/index.ts';
import { checkoutSettings } from '../settings/index.ts';
import { validAddress, type Address } from './address.ts';
import { orderCompleted, orderModified, orderStatusChanged, type OrderWithLines } from './order-events.ts';
import { type OrderMove, orderMachine } from './order-status.ts';

/** What a transition needs of an order its caller has locked (`FOR UPDATE`). */
export type LockedOrder = Pick<OrderWithLines, 'id' | 'number' | 'status'>;

/** The order, locked for the rest of the transaction so two transitions never interleave. */
export async function lockedOrder(tx: Tx, orderId: bigint): Promise<OrderWithLines> {
  await tx.$executeRaw`SELECT 1 FROM orders WHERE id = ${orderId} FOR UPDATE`;
  const order = await tx.order.findUnique({ where: { id: orderId }, include: { lines: { orderBy: { id: 'asc' } } } });
  if (order === null) throw new DomainError('NOT_FOUND', `order ${orderId} does not exist`, { field: 'orderId' });
  return order;
}

/** Every move emits order.status_changed, which the order's lifecycle workflow follows. */
export async function moveOrder(
  tx: Tx,
  deps: DomainDeps,
  order: LockedOrder,
  move: OrderMove,
  data: { cancelReason?: string } & Record<string, unknown> = {},
): Promise<OrderWithLines> {
  const to = orderMachine.next(order.number, order.status, move);
  const moved = await tx.order.update({
    where: { id: order.id },
    data: { status: to, ...data },
    include: { lines: { orderBy: { id: 'asc' } } },
  });
  await orderStatusChanged(tx, deps, order, { from: order.status, to, reason: data.cancelReason });
  return moved;
}

/** A business order approved by staff waits for payment; its stock is held for the payment window from now. */
export async function approveOrder(tx: Tx, deps: DomainDeps, orderId: bigint): Promise<OrderWithLines> {
  const order = await lockedOrder(tx, orderId);
  const approved = await moveOrder(tx, deps, order, 'approve');
  const { paymentWindowMinutes } = await checkoutSettings(tx);
  await tx.inventoryReservation.updateMany({
    where: { orderId, state: 'HELD' },
    data: { expiresAt: new Date(deps.now().getTime() + paymentWindowMinutes * 60 * 1000) },
  });
  return approved;
}

/** Payment received: the held stock is committed. A hold that already ran out cannot be paid for. */
export async function markOrderPaid(tx: Tx, deps: DomainDeps, orderId: bigint): Promise<OrderWithLines> {
  const order = await lockedOrder(tx, orderId);
  orderMachine.next(order.number, order.status, 'pay');
  // Past its expiry a hold is the expiry's to release (the order lifecycle or the sweep cancels the order), even before that has run.
  const held = await tx.inventoryReservation.count({ where: { orderId, state: 'HELD', expiresAt: { gt: deps.now() } } });
  if (held !== order.lines.length) {
    throw new DomainError('BAD_USER_INPUT', `order ${order.number} can no longer be paid: its stock hold expired`, { field: 'orderId' });
  }
  await commitReservations(tx, orderId);
  return moveOrder(tx, deps, order, 'pay', { paidAt: deps.now() });
}

export async function fulfilOrder(tx: Tx, deps: DomainDeps, orderId: bigint): Promise<OrderWithLines> {
  return moveOrder(tx, deps, await lockedOrder(tx, orderId), 'fulfil', { fulfilledAt: deps.now() });
}

/** Emits the in-process order.completed that attribution listens to. */
export async function completeOrder(tx: Tx, deps: DomainDeps, orderId: bigint): Promise<OrderWithLines> {
  const completedAt = deps.now();
  const completed = await moveOrder(tx, deps, await lockedOrder(tx, orderId), 'complete', { completedAt });
  await orderCompleted(tx, deps, completed, completedAt);
  return completed;
}

const ADDRESS_CHANGEABLE: readonly OrderStatus[] = ['AWAITING_APPROVAL', 'PENDING_PAYMENT', 'PLACED'];

/** Changes the shipping and/or billing address until the order is fulfilled; emits shop.orders.modified.v1. */
export async function changeOrderAddresses(
  tx: Tx,
  deps: DomainDeps,
  orderId: bigint,
  change: { shippingAddress?: Address; billingAddress?: Address },
): Promise<OrderWithLines> {
  const order = await lockedOrder(tx, orderId);
  if (!ADDRESS_CHANGEABLE.includes(order.status)) {
    throw new DomainError('BAD_USER_INPUT', `order ${order.number} is ${order.status}: its addresses can no longer change`, {
      field: 'orderId',
    });
  }
  const data: Record<string, unknown> = {};
  const changes: ('shipping_address' | 'billing_address')[] = [];
  if (change.shippingAddress !== undefined) {
    data.shippingAddress = { ...validAddress('shippingAddress', change.shippingAddress) };
    changes.push('shipping_address');
  }
  if (change.billingAddress !== undefined) {
    data.billingAddress = { ...validAddress('billingAddress', change.billingAddress) };
    changes.push('billing_address');
  }
  if (changes.length === 0)
    throw new DomainError('BAD_USER_INPUT', 'give a shippingAddress, a billingAddress or both', { field: 'shippingAddress' });
  const updated = await tx.order.update({ where: { id: orderId }, data, include: { lines: { orderBy: { id: 'asc' } } } });
  await orderModified(tx, deps, updated, changes);
  return updated;
}
