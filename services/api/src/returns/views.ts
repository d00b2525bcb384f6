import { moneyString } from '@shop/domain/kernel';
import { type ReturnDetail } from '@shop/domain/returns';
import { iso } from '../graphql/iso.ts';

export const returnView = (rma: ReturnDetail) => ({
  id: rma.id.toString(),
  orderId: rma.orderId.toString(),
  orderNumber: rma.order.number,
  status: rma.status,
  reason: rma.reason,
  draftExpiresAt: iso(rma.draftExpiresAt),
  requestedAt: iso(rma.requestedAt),
  receivedAt: iso(rma.receivedAt),
  refundedAt: iso(rma.refundedAt),
  closedAt: iso(rma.closedAt),
  receiptDueAt: iso(rma.receiptDueAt),
  createdAt: iso(rma.createdAt),
  lines: rma.lines.map((line) => ({
    orderLineId: line.orderLineId.toString(),
    sku: line.orderLine.sku,
    productName: line.orderLine.productName,
    unitPrice: moneyString(line.orderLine.unitPrice, rma.order.currency),
    quantityRequested: line.quantityRequested,
    quantityReceived: line.quantityReceived,
  })),
});
