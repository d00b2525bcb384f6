import type { Order, OrderLine, OrderStatus } from '@shop/platform';
import { type DomainDeps, idString, moneyString, optionalId, type Tx } from '../kernel/index.ts';

export type OrderWithLines = Order & { lines: OrderLine[] };

const totalsOf = (order: Order) => ({
  subtotal: moneyString(order.subtotal, order.currency),
  tax: moneyString(order.tax, order.currency),
  shipping: moneyString(order.shipping, order.currency),
  discount: moneyString(order.discount, order.currency),
  total: moneyString(order.total, order.currency),
});

const linesOf = (order: OrderWithLines) =>
  order.lines.map((line) => ({
    order_line_id: idString(line.id),
    product_id: idString(line.productId),
    sku: line.sku,
    category_ids: line.categoryIds.map(idString),
    brand_id: optionalId(line.brandId),
    quantity: line.quantity,
    unit_price: moneyString(line.unitPrice, order.currency),
    line_total: moneyString(line.lineTotal, order.currency),
  }));

export async function orderPlaced(tx: Tx, deps: DomainDeps, order: OrderWithLines): Promise<void> {
  if (order.status !== 'PENDING_PAYMENT' && order.status !== 'AWAITING_APPROVAL' && order.status !== 'PLACED') {
    throw new Error(`an order is placed as PENDING_PAYMENT, AWAITING_APPROVAL or PLACED, not ${order.status}`);
  }
  await deps.emit(tx, 'shop.orders.placed.v1', {
    order_id: idString(order.id),
    order_number: order.number,
    channel_id: idString(order.channelId),
    customer_id: optionalId(order.customerId),
    session_id: order.sessionId,
    status: order.status,
    currency: order.currency,
    totals: totalsOf(order),
    lines: linesOf(order),
    occurred_at: deps.now().toISOString(),
  });
}

export async function orderModified(
  tx: Tx,
  deps: DomainDeps,
  order: OrderWithLines,
  changes: ('lines' | 'shipping_address' | 'billing_address')[],
): Promise<void> {
  await deps.emit(tx, 'shop.orders.modified.v1', {
    order_id: idString(order.id),
    order_number: order.number,
    channel_id: idString(order.channelId),
    changes,
    currency: order.currency,
    totals: totalsOf(order),
    lines: linesOf(order),
    occurred_at: deps.now().toISOString(),
  });
}

/**
 * The in-process event of every status change (`from` null at placement): the api starts or signals
 * the order's lifecycle workflow from it, through the outbox, so no change is missed after a crash.
 * Its broker twin, shop.orders.status_changed.v1, tells other services (search refreshes the order).
 */
export async function orderStatusChanged(
  tx: Tx,
  deps: DomainDeps,
  order: Pick<Order, 'id' | 'number'>,
  change: { from: OrderStatus | null; to: OrderStatus; reason?: string | null },
): Promise<void> {
  await deps.emit(tx, 'order.status_changed', {
    order_id: idString(order.id),
    order_number: order.number,
    from: change.from,
    to: change.to,
    reason: change.reason ?? null,
    occurred_at: deps.now().toISOString(),
  });
  await deps.emit(tx, 'shop.orders.status_changed.v1', {
    order_id: idString(order.id),
    order_number: order.number,
    from: change.from,
    to: change.to,
    occurred_at: deps.now().toISOString(),
  });
}

/** The in-process event attribution listens to: one line per product with its primary category. */
export async function orderCompleted(tx: Tx, deps: DomainDeps, order: OrderWithLines, completedAt: Date): Promise<void> {
  await deps.emit(tx, 'order.completed', {
    order_id: idString(order.id),
    customer_id: optionalId(order.customerId),
    session_id: order.sessionId,
    completed_at: completedAt.toISOString(),
    currency: order.currency,
    lines: order.lines.map((line) => ({
      order_line_id: idString(line.id),
      product_id: idString(line.productId),
      category_id: optionalId(line.categoryId),
      brand_id: optionalId(line.brandId),
      line_total: moneyString(line.lineTotal, order.currency),
    })),
    occurred_at: completedAt.toISOString(),
  });
}
