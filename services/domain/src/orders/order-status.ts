import type { OrderStatus } from '@shop/platform';
import { DomainError } from '../kernel/index.ts';

/**
 * The order lifecycle, in one place. Checkout creates an order in PENDING_PAYMENT (or
 * AWAITING_APPROVAL for a business account whose orders need approval); approval moves it to
 * PENDING_PAYMENT; payment to PLACED; then FULFILLED and COMPLETED. Cancellation is possible until
 * the order is fulfilled.
 */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  AWAITING_APPROVAL: ['PENDING_PAYMENT', 'CANCELLED'],
  PENDING_PAYMENT: ['PLACED', 'CANCELLED'],
  PLACED: ['FULFILLED', 'CANCELLED'],
  FULFILLED: ['COMPLETED'],
  COMPLETED: [],
  CANCELLED: [],
};

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

/** Throws BAD_USER_INPUT naming both states when the lifecycle does not allow the move. */
export function assertTransition(orderNumber: string, from: OrderStatus, to: OrderStatus): void {
  if (canTransition(from, to)) return;
  const allowed = ORDER_TRANSITIONS[from];
  const next = allowed.length === 0 ? `${from} is final` : `from ${from} it can go to ${allowed.join(', ')}`;
  throw new DomainError('BAD_USER_INPUT', `order ${orderNumber} cannot go from ${from} to ${to}: ${next}`, { from, to });
}

/** States after fulfilment: the goods have left the shop, so they may come back (returns) and the payment is given back part by part (refunds) rather than by cancelling. */
export function goodsHaveLeft(status: OrderStatus): boolean {
  return status === 'FULFILLED' || status === 'COMPLETED';
}

/** States whose order still holds its reserved stock (HELD): cancelling them releases it. */
export function holdsReservations(status: OrderStatus): boolean {
  return status === 'AWAITING_APPROVAL' || status === 'PENDING_PAYMENT';
}
