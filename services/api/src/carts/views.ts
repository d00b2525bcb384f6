import type { CartView as DomainCartView } from '@shop/domain/carts';

export interface CartLineView {
  readonly productId: string;
  /** For the product loader; not in the schema. */
  readonly productKey: bigint;
  readonly quantity: number;
  readonly unitPrice: string;
  readonly lineTotal: string;
}

export const cartView = (cart: DomainCartView) => ({
  id: cart.id.toString(),
  currency: cart.currency,
  lines: cart.lines.map((line): CartLineView => ({
    productId: line.productId.toString(),
    productKey: line.productId,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    lineTotal: line.lineTotal,
  })),
  itemCount: cart.lines.reduce((count, line) => count + line.quantity, 0),
  subtotal: cart.subtotal,
  shipping: cart.shipping,
  tax: cart.tax,
  total: cart.total,
});
