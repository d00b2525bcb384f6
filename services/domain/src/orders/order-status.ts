import { OrderStatus } from '@shop/platform';
import { defineMachine, type StateMachine } from '../kernel/index.ts';

/** The order lifecycle's moves. */
export type OrderMove = 'approve' | 'pay' | 'fulfil' | 'complete' | 'cancel';

const STATUS_CHANGED = 'shop.orders.status_changed.v1';

/**
 * The order lifecycle, in one place. Checkout creates an order in PENDING_PAYMENT (or
 * AWAITING_APPROVAL for a business account whose orders need approval); approval moves it to
 * PENDING_PAYMENT; payment to PLACED; then FULFILLED and COMPLETED. Cancellation is possible until
 * the order is fulfilled. Every move also emits the in-process order.status_changed, which the
 * order's workflow follows.
 */
export const orderMachine: StateMachine<OrderStatus, OrderMove> = defineMachine<OrderStatus, OrderMove>({
  entity: 'order',
  states: Object.values(OrderStatus),
  moves: {
    approve: { from: ['AWAITING_APPROVAL'], to: 'PENDING_PAYMENT', emits: STATUS_CHANGED },
    pay: { from: ['PENDING_PAYMENT'], to: 'PLACED', emits: STATUS_CHANGED },
    fulfil: { from: ['PLACED'], to: 'FULFILLED', emits: STATUS_CHANGED },
    complete: { from: ['FULFILLED'], to: 'COMPLETED', emits: STATUS_CHANGED },
    cancel: { from: ['AWAITING_APPROVAL', 'PENDING_PAYMENT', 'PLACED'], to: 'CANCELLED', emits: STATUS_CHANGED },
  },
  // Orders are named by number and their refusals by the states, as staff see them.
  refuse: ({ id, from, to, allowed }) => {
    const next =
      allowed.length === 0
        ? `${from} is final`
        : `from ${from} it can go to ${allowed.map((move) => orderMachine.moves[move].to).join(', ')}`;
    return { message: `order ${id} cannot go from ${from} to ${to}: ${next}`, details: { from, to } };
  },
});

/** States after fulfilment: the goods have left the shop, so they may come back (returns) and the payment is given back part by part (refunds) rather than by cancelling. */
export function goodsHaveLeft(status: OrderStatus): boolean {
  return status === 'FULFILLED' || status === 'COMPLETED';
}

/** States whose order still holds its reserved stock (HELD): cancelling them releases it. */
export function holdsReservations(status: OrderStatus): boolean {
  return status === 'AWAITING_APPROVAL' || status === 'PENDING_PAYMENT';
}
