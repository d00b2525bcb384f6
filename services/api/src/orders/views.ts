import type { PaymentTender, Prisma } from '@shop/platform';
import type { Address, OrderWithLines } from '@shop/domain';

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());
const amount = (value: Prisma.Decimal): string => value.toFixed(2);

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
  subtotal: amount(order.subtotal),
  tax: amount(order.tax),
  shipping: amount(order.shipping),
  discount: amount(order.discount),
  total: amount(order.total),
  // JSON columns written only through validAddress.
  billingAddress: order.billingAddress as unknown as Address,
  shippingAddress: order.shippingAddress as unknown as Address,
  placedAt: order.placedAt.toISOString(),
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
    unitPrice: amount(line.unitPrice),
    lineTotal: amount(line.lineTotal),
  })),
});

export const tenderView = (tender: PaymentTender) => ({
  id: tender.id.toString(),
  kind: tender.kind,
  status: tender.status,
  currency: tender.currency,
  authorized: amount(tender.authorizedAmount),
  captured: amount(tender.capturedAmount),
  refunded: amount(tender.refundedAmount),
  voided: amount(tender.voidedAmount),
  authorizationExpiresAt: tender.authorizationExpiresAt?.toISOString() ?? null,
  createdAt: tender.createdAt.toISOString(),
});
