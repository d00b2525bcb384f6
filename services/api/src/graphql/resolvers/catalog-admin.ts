import type { IResolvers } from 'mercurius';
import {
  createBrand,
  createCategory,
  createChannel,
  createProduct,
  deleteBrand,
  deleteCategory,
  deleteProduct,
  DomainError,
  updateBrand,
  updateCategory,
  updateProduct,
  type Tx,
} from '@shop/domain';
import { parseId, parseIds, parseOptionalId } from '../ids.ts';
import { brandView, categoryView, channelView, productView } from '../views.ts';
import { asStaff, notFound, type Context } from './common.ts';

interface ProductFields {
  sku: string;
  name: string;
  slug: string;
  description?: string | null;
  brandId?: string | null;
  price: string;
  currency: string;
  active?: boolean | null;
  categoryIds?: string[] | null;
  channelIds?: string[] | null;
}

type Patch<T> = { [K in keyof T]?: T[K] | null };

/** NOT_FOUND naming the first id (as `field[index]`) that has no row. */
async function assertAllExist(ids: readonly bigint[], field: string, what: string, found: (ids: bigint[]) => Promise<{ id: bigint }[]>): Promise<void> {
  const distinct = new Set(ids);
  if (distinct.size !== ids.length) throw new DomainError('BAD_USER_INPUT', `${field} lists an id twice`, { field });
  const existing = new Set((await found([...distinct])).map((row) => row.id));
  const index = ids.findIndex((id) => !existing.has(id));
  if (index >= 0) throw notFound(what, ids[index] as bigint, `${field}[${index}]`);
}

async function productRefsExist(tx: Tx, refs: { brandId?: bigint | null; categoryIds?: bigint[]; channelIds?: bigint[] }): Promise<void> {
  const { brandId, categoryIds, channelIds } = refs;
  if (brandId != null && (await tx.brand.count({ where: { id: brandId } })) === 0) throw notFound('brand', brandId, 'brandId');
  if (categoryIds !== undefined) {
    await assertAllExist(categoryIds, 'categoryIds', 'category', (ids) => tx.category.findMany({ where: { id: { in: ids } }, select: { id: true } }));
  }
  if (channelIds !== undefined) {
    await assertAllExist(channelIds, 'channelIds', 'channel', (ids) => tx.channel.findMany({ where: { id: { in: ids } }, select: { id: true } }));
  }
}

/** A patch argument's id: absent stays absent, null stays null (clear it), a value is parsed. */
function patchedId(value: string | null | undefined, argument: string): bigint | null | undefined {
  return value === null ? null : parseOptionalId(value, argument);
}

/** A patch argument's id list: absent stays absent; null is refused, as the list cannot be cleared that way. */
function patchedIds(values: string[] | null | undefined, argument: string): bigint[] | undefined {
  if (values === null) throw new DomainError('BAD_USER_INPUT', `${argument} cannot be null: give [] to empty it`, { field: argument });
  return values === undefined ? undefined : parseIds(values, argument);
}

/** Only the keys the client sent: GraphQL leaves absent input fields out of the object. */
function present<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

export const catalogAdminResolvers: IResolvers = {
  Mutation: {
    async createChannel(_root: unknown, { input }: { input: { code: string; name: string; defaultCurrency: string } }, context: Context) {
      return channelView(await asStaff(context, 'catalog.write', (tx) => createChannel(tx, input)));
    },
    async createBrand(_root: unknown, { input }: { input: { name: string; slug: string } }, context: Context) {
      return brandView(await asStaff(context, 'catalog.write', (tx) => createBrand(tx, input)));
    },
    async updateBrand(_root: unknown, args: { id: string; input: Patch<{ name: string; slug: string }> }, context: Context) {
      const id = parseId(args.id, 'id');
      return brandView(await asStaff(context, 'catalog.write', (tx) => updateBrand(tx, id, present(args.input))));
    },
    async deleteBrand(_root: unknown, args: { id: string }, context: Context) {
      const id = parseId(args.id, 'id');
      await asStaff(context, 'catalog.write', (tx) => deleteBrand(tx, id));
      return args.id;
    },
    async createCategory(
      _root: unknown,
      { input }: { input: { name: string; slug: string; parentId?: string | null; position?: number | null } },
      context: Context,
    ) {
      const parentId = parseOptionalId(input.parentId, 'parentId');
      const category = await asStaff(context, 'catalog.write', (tx) =>
        createCategory(tx, { name: input.name, slug: input.slug, ...(parentId === undefined ? {} : { parentId }), position: input.position ?? 0 }),
      );
      return categoryView(category);
    },
    async updateCategory(_root: unknown, args: { id: string; input: Patch<{ name: string; slug: string; parentId: string; position: number }> }, context: Context) {
      const id = parseId(args.id, 'id');
      const patch = present({ ...args.input, parentId: patchedId(args.input.parentId, 'parentId') });
      return categoryView(await asStaff(context, 'catalog.write', (tx) => updateCategory(tx, id, patch)));
    },
    async deleteCategory(_root: unknown, args: { id: string }, context: Context) {
      const id = parseId(args.id, 'id');
      await asStaff(context, 'catalog.write', (tx) => deleteCategory(tx, id));
      return args.id;
    },
    async createProduct(_root: unknown, { input }: { input: ProductFields }, context: Context) {
      const brandId = parseOptionalId(input.brandId, 'brandId');
      const categoryIds = parseIds(input.categoryIds, 'categoryIds');
      const channelIds = parseIds(input.channelIds, 'channelIds');
      const product = await asStaff(context, 'catalog.write', async (tx) => {
        await productRefsExist(tx, { brandId, categoryIds, channelIds });
        return createProduct(tx, {
          sku: input.sku,
          name: input.name,
          slug: input.slug,
          description: input.description ?? '',
          price: input.price,
          currency: input.currency,
          active: input.active ?? true,
          categoryIds,
          channelIds,
          ...(brandId === undefined ? {} : { brandId }),
        });
      });
      return productView(product);
    },
    async updateProduct(_root: unknown, args: { id: string; input: Patch<ProductFields> }, context: Context) {
      const id = parseId(args.id, 'id');
      const refs = {
        brandId: patchedId(args.input.brandId, 'brandId'),
        categoryIds: patchedIds(args.input.categoryIds, 'categoryIds'),
        channelIds: patchedIds(args.input.channelIds, 'channelIds'),
      };
      const patch = present({ ...args.input, ...refs });
      const product = await asStaff(context, 'catalog.write', async (tx) => {
        await productRefsExist(tx, refs);
        return updateProduct(tx, id, patch);
      });
      return productView(product);
    },
    async deleteProduct(_root: unknown, args: { id: string }, context: Context) {
      const id = parseId(args.id, 'id');
      await asStaff(context, 'catalog.write', (tx) => deleteProduct(tx, id));
      return args.id;
    },
  },
};
