import type { OrderStatus } from '@shop/platform';
import { idString, type DomainDeps, type Tx } from '../kernel/index.ts';
import { expireReservationsOf } from '../inventory/index.ts';
import { recordWorkflowFault, type WorkflowRun } from '../workflow-runs/index.ts';
import { holdsReservations, type LockedOrder } from '../orders/index.ts';
import { cancelLockedOrder } from './order-cancellation.ts';

/**
 * Ending an order's stock hold with its payment or approval window (orders, inventory, tenders).
 * Guarantees: the order is cancelled, its holds released and its ledger tenders credited back in one
 * transaction; a hold left over by a settled order is released and recorded as a fault.
 */

const EXPIRY_REASONS = {
  PENDING_PAYMENT: 'the stock hold expired before payment',
  AWAITING_APPROVAL: 'the stock hold expired before the order was approved',
} as const satisfies Partial<Record<OrderStatus, string>>;

/**
 * Ends the holds of these locked orders and cancels those still waiting for approval or payment,
 * with the reason (cancelLockedOrder: their store credit and gift cards are credited back; their
 * card authorizations are left for the sweep of expiring authorizations, as this runs in one
 * transaction for a batch of orders and must not wait for the gateway). Orders in any other status
 * keep their status: a HELD reservation of theirs is a leftover, released all the same, and
 * returned so the caller can record it as a fault.
 */
async function expireHoldsOf(tx: Tx, deps: DomainDeps, orders: readonly LockedOrder[]) {
  const reservations = await expireReservationsOf(
    tx,
    deps,
    orders.map((order) => order.id),
  );
  const waiting = orders.filter((order) => holdsReservations(order.status));
  for (const order of waiting) {
    const reason = order.status === 'AWAITING_APPROVAL' ? EXPIRY_REASONS.AWAITING_APPROVAL : EXPIRY_REASONS.PENDING_PAYMENT;
    await cancelLockedOrder(tx, deps, order, { reason, cards: 'by_sweep' });
  }
  return {
    reservations,
    cancelled: waiting.map((order) => order.id),
    leftovers: orders.filter((order) => !holdsReservations(order.status)),
  };
}

export interface StaleReservationSweep {
  /** Orders whose holds this pass ended. */
  readonly orders: number;
  readonly reservations: number;
  readonly cancelledOrderIds: readonly bigint[];
  /** Faults this pass recorded (one per leftover hold of an order no longer waiting). */
  readonly faults: readonly { reason: string }[];
  /** True when more holds may be due: run another pass. */
  readonly more: boolean;
}

export const HELD_FOR_SETTLED_ORDER = 'held_for_settled_order';

/**
 * One bounded pass of ExpireStaleReservations: up to `limit` holds past their expiry as of `asOf`,
 * by their orders, which it locks (skipping orders another transaction holds: a payment under way
 * wins, the next pass sees the result). Running it again changes nothing.
 */
export async function expireStaleReservations(
  tx: Tx,
  deps: DomainDeps,
  options: { asOf: Date; limit: number; run: WorkflowRun },
): Promise<StaleReservationSweep> {
  // Holds another sweep (or a payment) has locked are skipped, so concurrent sweeps take disjoint
  // batches and a batch of locked holds never ends a run while others are still due.
  const due = await tx.$queryRaw<{ order_id: bigint }[]>`
    SELECT order_id FROM inventory_reservations
     WHERE state = 'HELD' AND expires_at <= ${options.asOf}
     ORDER BY expires_at LIMIT ${options.limit}
       FOR UPDATE SKIP LOCKED`;
  const orderIds = [...new Set(due.map((row) => row.order_id))];
  const orders =
    orderIds.length === 0
      ? []
      : await tx.$queryRaw<LockedOrder[]>`
    SELECT id, number, status::text AS status FROM orders
     WHERE id = ANY(${orderIds.map(String)}::bigint[]) ORDER BY id FOR UPDATE SKIP LOCKED`;
  const expired = await expireHoldsOf(tx, deps, orders);
  const faults: { reason: string }[] = [];
  for (const order of expired.leftovers) {
    const fault = {
      entityType: 'order',
      entityId: idString(order.id),
      reason: HELD_FOR_SETTLED_ORDER,
      details: { orderNumber: order.number, status: order.status },
    };
    if (await recordWorkflowFault(tx, options.run, fault)) faults.push(fault);
  }
  return {
    orders: orders.length,
    reservations: expired.reservations,
    cancelledOrderIds: expired.cancelled,
    faults,
    // Not when every order of a full batch was locked: passes back to back would spin until those commit.
    more: due.length === options.limit && orders.length > 0,
  };
}

/** What the order's lifecycle workflow waits on. */
export interface OrderLifecycleView {
  readonly orderNumber: string;
  readonly status: OrderStatus;
  /** ISO times; the approval's waits count from placement, the fulfilment window from payment. */
  readonly placedAt: string;
  readonly paidAt: string | null;
  /** When the stock hold of an order waiting for approval or payment runs out (ISO); null otherwise. */
  readonly holdExpiresAt: string | null;
}

/** null when the order does not exist. */
export async function orderLifecycleView(tx: Tx, orderId: bigint): Promise<OrderLifecycleView | null> {
  const [row] = await tx.$queryRaw<
    { number: string; status: OrderStatus; placed_at: Date; paid_at: Date | null; hold_expires_at: Date | null }[]
  >`
    SELECT o.number, o.status::text AS status, o.placed_at, o.paid_at,
           (SELECT min(r.expires_at) FROM inventory_reservations r WHERE r.order_id = o.id AND r.state = 'HELD') AS hold_expires_at
      FROM orders o WHERE o.id = ${orderId}`;
  if (row === undefined) return null;
  const waiting = holdsReservations(row.status);
  return {
    orderNumber: row.number,
    status: row.status,
    placedAt: row.placed_at.toISOString(),
    paidAt: row.paid_at?.toISOString() ?? null,
    holdExpiresAt: waiting && row.hold_expires_at !== null ? row.hold_expires_at.toISOString() : null,
  };
}

/**
 * The payment deadline of one order (OrderLifecycleWorkflow's timer): when the order still waits
 * and its hold ran out by `asOf`, its stock goes back to sale and it is cancelled. Otherwise nothing
 * changes. Returns the order's status afterwards.
 */
export async function expireUnpaidOrder(tx: Tx, deps: DomainDeps, orderId: bigint, asOf: Date): Promise<OrderStatus | null> {
  const [order] = await tx.$queryRaw<LockedOrder[]>`SELECT id, number, status::text AS status FROM orders WHERE id = ${orderId} FOR UPDATE`;
  if (order === undefined) return null;
  if (!holdsReservations(order.status)) return order.status;
  const [hold] = await tx.$queryRaw<{ expires_at: Date | null }[]>`
    SELECT min(expires_at) AS expires_at FROM inventory_reservations WHERE order_id = ${orderId} AND state = 'HELD'`;
  if (hold?.expires_at != null && hold.expires_at > asOf) return order.status;
  await expireHoldsOf(tx, deps, [order]);
  return 'CANCELLED';
}
