import type { PaymentTender } from '@shop/platform';
import { moneyString } from '@shop/domain/kernel';
import { type Address, type OrderWithLines } from '@shop/domain/orders';
import { iso } from '../graphql/iso.ts';

export type OrderView = ReturnType<typeof orderView>;

/** Its tenders come from the Order.tenders loader. */
export const orderView = (order: OrderWithLines) => ({
  id: order.id.toString(),
  number: order.number,
  channelId: order.channelId.toString(),
  customerId: order.customerId?.toString() ?? null,
  status: order.status,
  email: order.email,
  currency: order.currency,
  subtotal: moneyString(order.subtotal, order.currency),
  tax: moneyString(order.tax, order.currency),
  shipping: moneyString(order.shipping, order.currency),
  discount: moneyString(order.discount, order.currency),
  total: moneyString(order.total, order.currency),
  // JSON columns written only through validAddress.
  billingAddress: order.billingAddress as unknown as Address,
  shippingAddress: order.shippingAddress as unknown as Address,
  placedAt: iso(order.placedAt),
  paidAt: iso(order.paidAt),
  fulfilledAt: iso(order.fulfilledAt),
  completedAt: iso(order.completedAt),
  cancelledAt: iso(order.cancelledAt),
  cancelReason: order.cancelReason,
  lines: order.lines.map((line) => ({
    id: line.id.toString(),
    productId: line.productId.toString(),
    sku: line.sku,
    productName: line.productName,
    quantity: line.quantity,
    unitPrice: moneyString(line.unitPrice, order.currency),
    lineTotal: moneyString(line.lineTotal, order.currency),
  })),
});

export const tenderView = (tender: PaymentTender) => ({
  id: tender.id.toString(),
  kind: tender.kind,
  status: tender.status,
  currency: tender.currency,
  authorized: moneyString(tender.authorizedAmount, tender.currency),
  captured: moneyString(tender.capturedAmount, tender.currency),
  refunded: moneyString(tender.refundedAmount, tender.currency),
  voided: moneyString(tender.voidedAmount, tender.currency),
  authorizationExpiresAt: iso(tender.authorizationExpiresAt),
  createdAt: iso(tender.createdAt),
});
