import { createHash } from 'node:crypto';
import { DomainError, money, type Money, moneyString, sum, type Tx } from '../kernel/index.ts';
import { checkoutTotals, type ActiveCart } from '../carts/index.ts';
import type { SellableProduct } from '../catalog/index.ts';
import type { CheckoutSettings } from '../settings/index.ts';

/** What checkout charges for a cart now: its lines at today's prices and the totals. */
export interface CartQuote {
  readonly lines: readonly { product: SellableProduct; quantity: number; lineTotal: Money }[];
  readonly subtotal: Money;
  readonly shipping: Money;
  readonly tax: Money;
  readonly total: Money;
  /**
   * SHA-256 (hex) of the currency, each line's product, quantity and price, and the total: a card
   * authorized for one digest pays only a cart that still has it (docs/money.md, cart tenders).
   */
  readonly digest: string;
}

/**
 * The cart's lines with their products at today's prices, in one statement; NOT_FOUND naming the
 * first product that is no longer active or sold in the cart's channel (as sellableProducts does).
 */
async function cartLinesWithProducts(tx: Tx, cart: ActiveCart): Promise<{ product: SellableProduct; quantity: number }[]> {
  const rows = await tx.$queryRaw<
    {
      productId: bigint;
      quantity: number;
      sku: string;
      name: string;
      price: string;
      currency: string;
      brandId: bigint | null;
      categoryIds: string[];
      sellable: boolean;
    }[]
  >`
    SELECT l.product_id AS "productId", l.quantity, p.sku, p.name, p.price::text AS price, p.currency, p.brand_id AS "brandId",
           ARRAY(SELECT pc.category_id::text FROM product_categories pc WHERE pc.product_id = p.id ORDER BY pc.position, pc.category_id) AS "categoryIds",
           p.active AND EXISTS (SELECT 1 FROM product_channels ch WHERE ch.product_id = p.id AND ch.channel_id = ${cart.channelId}) AS sellable
      FROM cart_lines l JOIN products p ON p.id = l.product_id
     WHERE l.cart_id = ${cart.id}
     ORDER BY l.id`;
  const unsellable = rows.find((row) => !row.sellable);
  if (unsellable !== undefined) {
    throw new DomainError('NOT_FOUND', `product ${unsellable.productId} does not exist or is not sold in this channel`, {
      productId: unsellable.productId.toString(),
    });
  }
  return rows.map(({ productId, quantity, sku, name, price, currency, brandId, categoryIds }) => ({
    product: { id: productId, sku, name, price: money(price), currency, brandId, categoryIds: categoryIds.map(BigInt) },
    quantity,
  }));
}

/**
 * The cart as checkout would charge it now. Refused: an empty cart (BAD_USER_INPUT) and a product
 * repriced in another currency since it went into the cart (CONFLICT: its price cannot be added up
 * with the others).
 */
export async function quoteCart(tx: Tx, cart: ActiveCart, settings: CheckoutSettings): Promise<CartQuote> {
  const cartLines = await cartLinesWithProducts(tx, cart);
  if (cartLines.length === 0) throw new DomainError('BAD_USER_INPUT', `cart ${cart.id} is empty`, { field: 'cartId' });
  const foreign = cartLines.find(({ product }) => product.currency !== cart.currency);
  if (foreign !== undefined) {
    throw new DomainError(
      'CONFLICT',
      `product ${foreign.product.sku} is now priced in ${foreign.product.currency}, the cart in ${cart.currency}: remove it`,
      {
        productId: foreign.product.id.toString(),
      },
    );
  }
  const lines = cartLines.map(({ product, quantity }) => ({ product, quantity, lineTotal: product.price.mul(quantity) }));
  const subtotal = sum(lines.map((line) => line.lineTotal));
  const { shipping, tax, total } = checkoutTotals(subtotal, cart.currency, settings);
  const content = [
    cart.currency,
    lines.map(({ product, quantity }) => [product.id.toString(), quantity, moneyString(product.price, cart.currency)]),
    moneyString(total, cart.currency),
  ];
  return { lines, subtotal, shipping, tax, total, digest: createHash('sha256').update(JSON.stringify(content)).digest('hex') };
}
