import type { Order, OrderLine, ReturnAuthorization, ReturnAuthorizationLine, ReturnStatus } from '@shop/platform';
import { idString, optionalId, type DomainDeps, type Tx } from '../kernel/index.ts';

/** A return with its order and its lines, each with the order line it gives back. */
export type ReturnDetail = ReturnAuthorization & {
  readonly order: Order;
  readonly lines: (ReturnAuthorizationLine & { readonly orderLine: OrderLine })[];
};

/** shop.returns.status_changed.v1 (`from` null at creation), in the move's transaction. */
export async function returnStatusChanged(tx: Tx, deps: DomainDeps, rma: ReturnDetail, from: ReturnStatus | null): Promise<void> {
  await deps.emit(tx, 'shop.returns.status_changed.v1', {
    return_id: idString(rma.id),
    order_id: idString(rma.orderId),
    order_number: rma.order.number,
    customer_id: optionalId(rma.order.customerId),
    from,
    to: rma.status,
    lines: rma.lines.map((line) => ({
      order_line_id: idString(line.orderLineId),
      sku: line.orderLine.sku,
      quantity_requested: line.quantityRequested,
      quantity_received: line.quantityReceived,
    })),
    occurred_at: deps.now().toISOString(),
  });
}
