import type { MercuriusContext, MercuriusLoaders } from 'mercurius';
import { availableUnits, brandsByIds, categoriesByIds, categoriesOfProducts, subcategories } from '@shop/domain/catalog';
import { brandView, categoryView, type BrandView, type CategoryView, type ProductView } from './views.ts';

type Query<T> = { readonly obj: T };

const unique = (ids: readonly (bigint | null)[]): bigint[] => [...new Set(ids.filter((id): id is bigint => id !== null))];

/** The rows the loaders still need: those read without the field preloaded. */
const unread = <T>(queries: readonly Query<T>[], isPreloaded: (obj: T) => boolean, key: (obj: T) => bigint | null): bigint[] =>
  unique(queries.filter(({ obj }) => !isPreloaded(obj)).map(({ obj }) => key(obj)));

/**
 * Batched per request (mercurius loaders): a page of products with their brand, categories and
 * stock costs one query per field, however many products it holds, and none when the page was
 * read with them (storefront listings are).
 */
export const catalogLoaders: MercuriusLoaders = {
  Product: {
    async brand(queries: Query<ProductView>[], context: MercuriusContext) {
      const keys = unread(
        queries,
        (obj) => obj.preloaded !== undefined,
        (obj) => obj.brandKey,
      );
      const byId = keys.length === 0 ? new Map() : await brandsByIds(context.shop.services.sql, keys);
      return queries.map(({ obj }): BrandView | null => {
        if (obj.preloaded !== undefined) return obj.preloaded.brand;
        const brand = obj.brandKey === null ? undefined : byId.get(obj.brandKey);
        return brand === undefined ? null : brandView(brand);
      });
    },
    async categories(queries: Query<ProductView>[], context: MercuriusContext) {
      const keys = unread(
        queries,
        (obj) => obj.preloaded !== undefined,
        (obj) => obj.key,
      );
      const byProduct = keys.length === 0 ? new Map() : await categoriesOfProducts(context.shop.services.sql, keys);
      return queries.map(({ obj }) => obj.preloaded?.categories ?? (byProduct.get(obj.key) ?? []).map(categoryView));
    },
    async available(queries: Query<ProductView>[], context: MercuriusContext) {
      const keys = unread(
        queries,
        (obj) => obj.preloaded !== undefined,
        (obj) => obj.key,
      );
      const byProduct = keys.length === 0 ? new Map<bigint, number>() : await availableUnits(context.shop.services.sql, keys);
      return queries.map(({ obj }) => obj.preloaded?.available ?? byProduct.get(obj.key) ?? 0);
    },
  },
  Category: {
    async children(queries: Query<CategoryView>[], context: MercuriusContext) {
      const byParent = await subcategories(context.shop.services.prisma, unique(queries.map(({ obj }) => obj.key)));
      return queries.map(({ obj }) => (byParent.get(obj.key) ?? []).map(categoryView));
    },
    async parent(queries: Query<CategoryView>[], context: MercuriusContext) {
      const keys = unread(
        queries,
        (obj) => obj.preloadedParent !== undefined,
        (obj) => obj.parentKey,
      );
      const byId = keys.length === 0 ? new Map() : await categoriesByIds(context.shop.services.sql, keys);
      return queries.map(({ obj }): CategoryView | null => {
        if (obj.preloadedParent !== undefined) return obj.preloadedParent;
        const parent = obj.parentKey === null ? undefined : byId.get(obj.parentKey);
        return parent === undefined ? null : categoryView(parent);
      });
    },
  },
};
