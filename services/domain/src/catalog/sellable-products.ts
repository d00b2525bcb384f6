import { DomainError } from '../errors/domain-error.ts';
import type { Tx } from '../context.ts';
import type { Money } from '../money.ts';

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
  const rows = await tx.product.findMany({
    where: { id: { in: [...productIds] }, active: true, channels: { some: { channelId } } },
    include: { categories: { orderBy: [{ position: 'asc' }, { categoryId: 'asc' }], select: { categoryId: true } } },
  });
  const found = new Map(
    rows.map((row) => [
      row.id,
      { id: row.id, sku: row.sku, name: row.name, price: row.price, currency: row.currency, brandId: row.brandId, categoryIds: row.categories.map((c) => c.categoryId) },
    ]),
  );
  const missing = productIds.find((id) => !found.has(id));
  if (missing !== undefined) throw new DomainError('NOT_FOUND', `product ${missing} does not exist or is not sold in this channel`, { productId: missing.toString() });
  return found;
}
