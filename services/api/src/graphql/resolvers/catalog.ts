import type { IResolvers, MercuriusLoaders } from 'mercurius';
import type { Prisma } from '@shop/platform';
import { DomainError } from '@shop/domain';
import { decodeCursor, pageOf, pageSize, parseOptionalId } from '../ids.ts';
import { brandView, categoryView, channelView, type BrandView, type CartLineView, type CategoryView } from '../views.ts';
import {
  availableUnits,
  brandExists,
  brandsByIds,
  categoriesByIds,
  categoriesOfProducts,
  categoryAndDescendants,
  productPage,
  productsByIds,
  visibleProduct,
  type StorefrontCategory,
  type StorefrontProduct,
} from '../catalog-reads.ts';
import { notFound, optionalArgument, type Context } from './common.ts';

const SEARCH_MAX_LENGTH = 200;
const SLUG_MAX_LENGTH = 300;
const CATEGORY_ORDER = [{ position: 'asc' }, { id: 'asc' }] as const satisfies Prisma.CategoryOrderByWithRelationInput[];

interface ProductsArgs {
  readonly first?: number | null;
  readonly after?: string | null;
  readonly categoryId?: string | null;
  readonly brandId?: string | null;
  readonly search?: string | null;
}

export const catalogResolvers: IResolvers = {
  Query: {
    async products(_root: unknown, args: ProductsArgs, context: Context) {
      const size = pageSize(args.first);
      const after = decodeCursor('product', args.after);
      const brandId = parseOptionalId(args.brandId, 'brandId');
      const categoryId = parseOptionalId(args.categoryId, 'categoryId');
      const search = optionalArgument(args.search, 'search', SEARCH_MAX_LENGTH);
      const channelId = await context.shop.channelId();
      const { sql } = context.shop.services;
      if (brandId !== undefined && !(await brandExists(sql, brandId))) throw notFound('brand', brandId, 'brandId');
      const categoryIds = categoryId === undefined ? undefined : await categoryAndDescendants(sql, categoryId);
      if (categoryId !== undefined && categoryIds?.length === 0) throw notFound('category', categoryId, 'categoryId');
      const rows = await productPage(sql, {
        channelId,
        limit: size + 1,
        ...(after === undefined ? {} : { afterId: after }),
        ...(brandId === undefined ? {} : { brandId }),
        ...(categoryIds === undefined ? {} : { categoryIds }),
        ...(search === undefined ? {} : { search }),
      });
      return pageOf('product', rows.map((view) => ({ id: view.key, view })), size, (row) => row.view);
    },
    async product(_root: unknown, args: { id?: string | null; slug?: string | null }, context: Context) {
      const id = parseOptionalId(args.id, 'id');
      const slug = optionalArgument(args.slug, 'slug', SLUG_MAX_LENGTH);
      if ((id === undefined) === (slug === undefined)) throw new DomainError('BAD_USER_INPUT', 'give either id or slug', { field: id === undefined ? 'id' : 'slug' });
      const channelId = await context.shop.channelId();
      return visibleProduct(context.shop.services.sql, channelId, id === undefined ? { slug: slug ?? '' } : { id });
    },
    async categories(_root: unknown, _args: unknown, context: Context) {
      const roots = await context.shop.services.prisma.category.findMany({ where: { parentId: null }, orderBy: CATEGORY_ORDER });
      return roots.map(categoryView);
    },
    async brands(_root: unknown, _args: unknown, context: Context) {
      const brands = await context.shop.services.prisma.brand.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] });
      return brands.map(brandView);
    },
    async channels(_root: unknown, _args: unknown, context: Context) {
      const channels = await context.shop.services.prisma.channel.findMany({ orderBy: { id: 'asc' } });
      return channels.map(channelView);
    },
  },
};

type Query<T> = { readonly obj: T };

const unique = (ids: readonly (bigint | null)[]): bigint[] => [...new Set(ids.filter((id): id is bigint => id !== null))];

/**
 * Batched per request (mercurius loaders): a page of products with their brand, categories and
 * stock costs one query per field, however many products it holds.
 */
export const catalogLoaders: MercuriusLoaders = {
  Product: {
    async brand(queries: Query<StorefrontProduct>[], context: Context) {
      const unread = queries.filter(({ obj }) => obj.preloaded === undefined).map(({ obj }) => obj.brandKey);
      const byId = unread.length === 0 ? new Map<bigint, BrandView>() : await brandsByIds(context.shop.services.sql, unique(unread));
      return queries.map(({ obj }) => obj.preloaded?.brand ?? (obj.brandKey === null ? null : (byId.get(obj.brandKey) ?? null)));
    },
    async categories(queries: Query<StorefrontProduct>[], context: Context) {
      const unread = queries.filter(({ obj }) => obj.preloaded === undefined).map(({ obj }) => obj.key);
      const byProduct = unread.length === 0 ? new Map<bigint, CategoryView[]>() : await categoriesOfProducts(context.shop.services.sql, unique(unread));
      return queries.map(({ obj }) => obj.preloaded?.categories ?? byProduct.get(obj.key) ?? []);
    },
    async available(queries: Query<StorefrontProduct>[], context: Context) {
      const unread = queries.filter(({ obj }) => obj.preloaded === undefined).map(({ obj }) => obj.key);
      const byProduct = unread.length === 0 ? new Map<bigint, number>() : await availableUnits(context.shop.services.sql, unique(unread));
      return queries.map(({ obj }) => obj.preloaded?.available ?? byProduct.get(obj.key) ?? 0);
    },
  },
  Category: {
    async children(queries: Query<CategoryView>[], context: Context) {
      const rows = await context.shop.services.prisma.category.findMany({
        where: { parentId: { in: unique(queries.map((q) => q.obj.key)) } },
        orderBy: CATEGORY_ORDER,
      });
      const byParent = new Map<bigint, CategoryView[]>();
      for (const row of rows) if (row.parentId !== null) byParent.set(row.parentId, [...(byParent.get(row.parentId) ?? []), categoryView(row)]);
      return queries.map(({ obj }) => byParent.get(obj.key) ?? []);
    },
    async parent(queries: Query<StorefrontCategory>[], context: Context) {
      const unread = queries.filter(({ obj }) => obj.preloadedParent === undefined).map(({ obj }) => obj.parentKey);
      const byId = unread.length === 0 ? new Map<bigint, CategoryView>() : await categoriesByIds(context.shop.services.sql, unique(unread));
      return queries.map(({ obj }) => (obj.preloadedParent !== undefined ? obj.preloadedParent : obj.parentKey === null ? null : (byId.get(obj.parentKey) ?? null)));
    },
  },
  CartLine: {
    async product(queries: Query<CartLineView>[], context: Context) {
      const byId = await productsByIds(context.shop.services.sql, unique(queries.map((q) => q.obj.productKey)));
      return queries.map(({ obj }) => byId.get(obj.productKey) ?? null);
    },
  },
};
