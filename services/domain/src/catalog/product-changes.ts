import type { EventPayloads } from '@shop/platform';
import { idString, type DomainDeps, type Tx } from '../kernel/index.ts';

export type ProductChangeCause = EventPayloads['shop.catalog.product_changed.v1']['cause'];

/** One `shop.catalog.product_changed.v1` per product: consumers (search) re-read each product. */
export async function productsChanged(tx: Tx, deps: DomainDeps, productIds: readonly bigint[], cause: ProductChangeCause): Promise<void> {
  const occurredAt = deps.now().toISOString();
  for (const id of productIds)
    await deps.emit(tx, 'shop.catalog.product_changed.v1', { product_id: idString(id), cause, occurred_at: occurredAt });
}

/** The products of the brand. */
export async function productsOfBrand(tx: Tx, brandId: bigint): Promise<bigint[]> {
  return (await tx.product.findMany({ where: { brandId }, select: { id: true }, orderBy: { id: 'asc' } })).map((row) => row.id);
}

/** The products in the category or any of its subcategories: a product's search document holds its categories' ancestors. */
export async function productsUnderCategory(tx: Tx, categoryId: bigint): Promise<bigint[]> {
  const rows = await tx.$queryRaw<{ product_id: bigint }[]>`
    WITH RECURSIVE tree AS (
      SELECT id FROM categories WHERE id = ${categoryId}
      UNION ALL
      SELECT c.id FROM categories c JOIN tree ON c.parent_id = tree.id
    )
    SELECT DISTINCT pc.product_id FROM product_categories pc JOIN tree ON pc.category_id = tree.id ORDER BY pc.product_id`;
  return rows.map((row) => row.product_id);
}
