import { moneyString } from '@shop/domain/kernel';
import { type ReturnDetail } from '@shop/domain/returns';

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

export const returnView = (rma: ReturnDetail) => ({
  id: rma.id.toString(),
  orderId: rma.orderId.toString(),
  orderNumber: rma.order.number,
  status: rma.status,
  reason: rma.reason,
  draftExpiresAt: rma.draftExpiresAt.toISOString(),
  requestedAt: iso(rma.requestedAt),
  receivedAt: iso(rma.receivedAt),
  refundedAt: iso(rma.refundedAt),
  closedAt: iso(rma.closedAt),
  receiptDueAt: iso(rma.receiptDueAt),
  createdAt: rma.createdAt.toISOString(),
  lines: rma.lines.map((line) => ({
    orderLineId: line.orderLineId.toString(),
    sku: line.orderLine.sku,
    productName: line.orderLine.productName,
    unitPrice: moneyString(line.orderLine.unitPrice, rma.order.currency),
    quantityRequested: line.quantityRequested,
    quantityReceived: line.quantityReceived,
  })),
});
