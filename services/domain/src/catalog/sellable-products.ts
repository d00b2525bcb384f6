import { DomainError, money, type Money, type Tx } from '../kernel/index.ts';

/** A product as carts and orders see it: price, and the category and brand ids reports need. */
export interface SellableProduct {
  readonly id: bigint;
  readonly sku: string;
  readonly name: string;
  readonly price: Money;
  readonly currency: string;
  /** Ordered by position: the first is the product's primary category. */
  readonly categoryIds: readonly bigint[];
  readonly brandId: bigint | null;
}

/**
 * The given products, each active and visible in the channel, or NOT_FOUND naming the first that
 * is not (an inactive or hidden product is indistinguishable from a missing one to a shopper).
 */
export async function sellableProducts(tx: Tx, channelId: bigint, productIds: readonly bigint[]): Promise<Map<bigint, SellableProduct>> {
  // One statement (products with their ordered category ids), not one per relation.
  const rows = await tx.$queryRaw<
    { id: bigint; sku: string; name: string; price: string; currency: string; brandId: bigint | null; categoryIds: string[] }[]
  >`
    SELECT p.id, p.sku, p.name, p.price::text AS price, p.currency, p.brand_id AS "brandId",
           ARRAY(SELECT pc.category_id::text FROM product_categories pc WHERE pc.product_id = p.id ORDER BY pc.position, pc.category_id) AS "categoryIds"
      FROM products p
     WHERE p.id = ANY(${productIds.map(String)}::bigint[]) AND p.active
       AND EXISTS (SELECT 1 FROM product_channels ch WHERE ch.product_id = p.id AND ch.channel_id = ${channelId})`;
  const found = new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        sku: row.sku,
        name: row.name,
        price: money(row.price),
        currency: row.currency,
        brandId: row.brandId,
        categoryIds: row.categoryIds.map(BigInt),
      },
    ]),
  );
  const missing = productIds.find((id) => !found.has(id));
  if (missing !== undefined)
    throw new DomainError('NOT_FOUND', `product ${missing} does not exist or is not sold in this channel`, {
      productId: missing.toString(),
    });
  return found;
}
