import type { IResolvers, MercuriusLoaders } from 'mercurius';
import type { Prisma } from '@shop/platform';
import { DomainError } from '@shop/domain';
import { decodeCursor, pageOf, pageSize, parseOptionalId } from '../ids.ts';
import { brandView, categoryView, channelView, productView, type CartLineView, type CategoryView, type ProductView } from '../views.ts';
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

/** The category and every category below it; NOT_FOUND naming the argument when it does not exist. */
async function categoryAndDescendants(prisma: Context['shop']['services']['prisma'], categoryId: bigint): Promise<bigint[]> {
  const rows = await prisma.$queryRaw<{ id: bigint }[]>`
    WITH RECURSIVE tree AS (
      SELECT id FROM categories WHERE id = ${categoryId}
      UNION
      SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id)
    SELECT id FROM tree`;
  if (rows.length === 0) throw notFound('category', categoryId, 'categoryId');
  return rows.map((row) => row.id);
}

/** What a storefront may see: active products sold in the channel. */
const visibleIn = (channelId: bigint) => ({ active: true, channels: { some: { channelId } } }) satisfies Prisma.ProductWhereInput;

export const catalogResolvers: IResolvers = {
  Query: {
    async products(_root: unknown, args: ProductsArgs, context: Context) {
      const size = pageSize(args.first);
      const after = decodeCursor('product', args.after);
      const brandId = parseOptionalId(args.brandId, 'brandId');
      const categoryId = parseOptionalId(args.categoryId, 'categoryId');
      const search = optionalArgument(args.search, 'search', SEARCH_MAX_LENGTH);
      const channelId = await context.shop.channelId();
      const { prisma } = context.shop.services;
      if (brandId !== undefined && (await prisma.brand.count({ where: { id: brandId } })) === 0) throw notFound('brand', brandId, 'brandId');
      const categoryIds = categoryId === undefined ? undefined : await categoryAndDescendants(prisma, categoryId);
      const rows = await prisma.product.findMany({
        where: {
          ...visibleIn(channelId),
          ...(after === undefined ? {} : { id: { gt: after } }),
          ...(brandId === undefined ? {} : { brandId }),
          ...(categoryIds === undefined ? {} : { categories: { some: { categoryId: { in: categoryIds } } } }),
          ...(search === undefined
            ? {}
            : { OR: [{ name: { contains: search, mode: 'insensitive' } }, { sku: { contains: search, mode: 'insensitive' } }] }),
        },
        orderBy: { id: 'asc' },
        take: size + 1,
      });
      return pageOf('product', rows, size, productView);
    },
    async product(_root: unknown, args: { id?: string | null; slug?: string | null }, context: Context) {
      const id = parseOptionalId(args.id, 'id');
      const slug = optionalArgument(args.slug, 'slug', SLUG_MAX_LENGTH);
      if ((id === undefined) === (slug === undefined)) throw new DomainError('BAD_USER_INPUT', 'give either id or slug', { field: id === undefined ? 'id' : 'slug' });
      const channelId = await context.shop.channelId();
      const product = await context.shop.services.prisma.product.findFirst({ where: { ...visibleIn(channelId), ...(id === undefined ? { slug } : { id }) } });
      return product === null ? null : productView(product);
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
    async brand(queries: Query<ProductView>[], context: Context) {
      const brands = await context.shop.services.prisma.brand.findMany({ where: { id: { in: unique(queries.map((q) => q.obj.brandKey)) } } });
      const byId = new Map(brands.map((brand) => [brand.id, brandView(brand)]));
      return queries.map(({ obj }) => (obj.brandKey === null ? null : (byId.get(obj.brandKey) ?? null)));
    },
    async categories(queries: Query<ProductView>[], context: Context) {
      // One join (an include would be a query per table).
      const rows = await context.shop.services.prisma.$queryRaw<(Omit<CategoryView, 'id'> & { productKey: bigint })[]>`
        SELECT pc.product_id AS "productKey", c.id AS key, c.parent_id AS "parentKey", c.name, c.slug, c.position
          FROM product_categories pc JOIN categories c ON c.id = pc.category_id
         WHERE pc.product_id = ANY(${unique(queries.map((q) => q.obj.key)).map(String)}::bigint[])
         ORDER BY pc.position, pc.category_id`;
      const byProduct = new Map<bigint, CategoryView[]>();
      for (const { productKey, ...category } of rows) byProduct.set(productKey, [...(byProduct.get(productKey) ?? []), { id: category.key.toString(), ...category }]);
      return queries.map(({ obj }) => byProduct.get(obj.key) ?? []);
    },
    async available(queries: Query<ProductView>[], context: Context) {
      const sums = await context.shop.services.prisma.stockLevel.groupBy({
        by: ['productId'],
        where: { productId: { in: unique(queries.map((q) => q.obj.key)) } },
        _sum: { onHand: true, reserved: true },
      });
      const byProduct = new Map(sums.map((row) => [row.productId, (row._sum.onHand ?? 0) - (row._sum.reserved ?? 0)]));
      return queries.map(({ obj }) => byProduct.get(obj.key) ?? 0);
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
    async parent(queries: Query<CategoryView>[], context: Context) {
      const rows = await context.shop.services.prisma.category.findMany({ where: { id: { in: unique(queries.map((q) => q.obj.parentKey)) } } });
      const byId = new Map(rows.map((row) => [row.id, categoryView(row)]));
      return queries.map(({ obj }) => (obj.parentKey === null ? null : (byId.get(obj.parentKey) ?? null)));
    },
  },
  CartLine: {
    async product(queries: Query<CartLineView>[], context: Context) {
      const rows = await context.shop.services.prisma.product.findMany({ where: { id: { in: unique(queries.map((q) => q.obj.productKey)) } } });
      const byId = new Map(rows.map((row) => [row.id, productView(row)]));
      return queries.map(({ obj }) => byId.get(obj.productKey) ?? null);
    },
  },
};
