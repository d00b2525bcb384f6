import type { SearchDocument } from '@shop/platform';
import { idString, moneyString, type Tx } from '../kernel/index.ts';
import { adminDocumentId } from './search-indexes.ts';
import { searchText } from './search-text.ts';

export interface ProductDocuments {
  /** One per product that exists, active or not. */
  readonly admin: SearchDocument[];
  /** One per active product sold in at least one channel, its document id the product id. */
  readonly storefront: SearchDocument[];
}

/** The admin and storefront documents of the products with these ids: found by name, SKU, description, brand and categories. */
export async function productDocuments(tx: Tx, ids: readonly bigint[]): Promise<ProductDocuments> {
  const [products, categories] = await Promise.all([
    tx.product.findMany({
      where: { id: { in: [...ids] } },
      include: {
        brand: { select: { name: true } },
        categories: { select: { categoryId: true }, orderBy: { position: 'asc' } },
        channels: { select: { channelId: true }, orderBy: { channelId: 'asc' } },
      },
      orderBy: { id: 'asc' },
    }),
    tx.category.findMany({ select: { id: true, parentId: true, name: true } }),
  ]);
  const categoryById = new Map(categories.map((category) => [category.id, category]));
  const admin: SearchDocument[] = [];
  const storefront: SearchDocument[] = [];
  for (const product of products) {
    const channels = product.channels.map((channel) => idString(channel.channelId));
    const categoryIds = product.categories.map((category) => category.categoryId);
    const body = searchText([
      product.sku,
      product.brand?.name,
      ...categoryIds.map((id) => categoryById.get(id)?.name),
      product.description,
    ]);
    const data = {
      id: idString(product.id),
      sku: product.sku,
      name: product.name,
      slug: product.slug,
      price: moneyString(product.price, product.currency),
      currency: product.currency,
      // The key, not the URL: the URL is the api's file storage's to make (docs/storage.md).
      imageKey: product.imageKey,
    };
    admin.push({
      id: adminDocumentId('product', product.id),
      title: product.name,
      body,
      filters: { kind: ['product'], active: [String(product.active)], channel: channels },
      data: { kind: 'product', ...data, active: product.active },
    });
    if (!product.active || channels.length === 0) continue;
    storefront.push({
      id: idString(product.id),
      title: product.name,
      body,
      filters: {
        channel: channels,
        // With every ancestor, so narrowing by a category also finds its subcategories' products, as the storefront's listing does.
        category: [...withAncestors(categoryIds, categoryById)].map(idString),
        brand: product.brandId === null ? [] : [idString(product.brandId)],
      },
      data: { ...data, brandName: product.brand?.name ?? null, categoryIds: categoryIds.map(idString) },
    });
  }
  return { admin, storefront };
}

function withAncestors(ids: readonly bigint[], categoryById: ReadonlyMap<bigint, { parentId: bigint | null }>): Set<bigint> {
  const found = new Set<bigint>();
  for (const id of ids) {
    let next: bigint | null = id;
    while (next !== null && !found.has(next)) {
      found.add(next);
      next = categoryById.get(next)?.parentId ?? null;
    }
  }
  return found;
}
