import { createBrand, createCategory, createChannel, createProduct, deleteBrand, deleteCategory, deleteProduct, productImageUpload, setProductImage, updateBrand, updateCategory, updateProduct } from '@shop/domain/catalog';
import { DomainError } from '@shop/domain/kernel';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { parseId, parseIds, parseOptionalId } from '../graphql/ids.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { requireFileStorage } from '../storage/api-file-storage.ts';
import { brandView, categoryView, channelView, productModelView } from './views.ts';
import { iso } from '../graphql/iso.ts';

/** A patch argument's id: absent stays absent, null stays null (clear it), a value is parsed. */
function patchedId(value: string | null | undefined, argument: string): bigint | null | undefined {
  return value === null ? null : parseOptionalId(value, argument);
}

/** A patch argument's id list: absent stays absent; null is refused, as the list cannot be cleared that way. */
function patchedIds(values: readonly string[] | null | undefined, argument: string): bigint[] | undefined {
  if (values === null) throw new DomainError('BAD_USER_INPUT', `${argument} cannot be null: give [] to empty it`, { field: argument });
  return values === undefined ? undefined : parseIds(values, argument);
}

/** Only the keys the client sent: GraphQL leaves absent input fields out of the object. */
function present<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Staff changes to the catalog; each runs in the transaction its permission is checked in. */
export const catalogAdminResolvers: Resolvers = {
  Mutation: {
    createChannel: staffField(async ({ input }, { tx }) => channelView(await createChannel(tx, input))),
    createBrand: staffField(async ({ input }, { tx }) => brandView(await createBrand(tx, input))),
    updateBrand: staffField(async (args, { tx }, context) => brandView(await updateBrand(tx, context.shop.services.deps, parseId(args.id, 'id'), present(args.input)))),
    deleteBrand: staffField(async (args, { tx }, context) => {
      await deleteBrand(tx, context.shop.services.deps, parseId(args.id, 'id'));
      return args.id;
    }),
    createCategory: staffField(async ({ input }, { tx }) => {
      const parentId = parseOptionalId(input.parentId, 'parentId');
      const category = await createCategory(tx, { name: input.name, slug: input.slug, ...(parentId === undefined ? {} : { parentId }), position: input.position ?? 0 });
      return categoryView(category);
    }),
    updateCategory: staffField(async (args, { tx }, context) => {
      const id = parseId(args.id, 'id');
      const patch = present({ ...args.input, parentId: patchedId(args.input.parentId, 'parentId') });
      return categoryView(await updateCategory(tx, context.shop.services.deps, id, patch));
    }),
    deleteCategory: staffField(async (args, { tx }, context) => {
      await deleteCategory(tx, context.shop.services.deps, parseId(args.id, 'id'));
      return args.id;
    }),
    createProduct: staffField(async ({ input }, { tx }, context) => {
      const brandId = parseOptionalId(input.brandId, 'brandId');
      const product = await createProduct(tx, context.shop.services.deps, {
        sku: input.sku,
        name: input.name,
        slug: input.slug,
        description: input.description ?? '',
        price: input.price,
        currency: input.currency,
        active: input.active ?? true,
        categoryIds: parseIds(input.categoryIds, 'categoryIds'),
        channelIds: parseIds(input.channelIds, 'channelIds'),
        ...(brandId === undefined ? {} : { brandId }),
      });
      return productModelView(product);
    }),
    updateProduct: staffField(async (args, { tx }, context) => {
      const id = parseId(args.id, 'id');
      const patch = present({
        ...args.input,
        brandId: patchedId(args.input.brandId, 'brandId'),
        categoryIds: patchedIds(args.input.categoryIds, 'categoryIds'),
        channelIds: patchedIds(args.input.channelIds, 'channelIds'),
      });
      return productModelView(await updateProduct(tx, context.shop.services.deps, id, patch));
    }),
    deleteProduct: staffField(async (args, { tx }, context) => {
      await deleteProduct(tx, context.shop.services.deps, parseId(args.id, 'id'));
      return args.id;
    }),
    createProductImageUpload: staffField(async (args, { tx }, context) => {
      const upload = await productImageUpload(tx, requireFileStorage(context), parseId(args.productId, 'productId'), { contentType: args.contentType, sizeBytes: args.sizeBytes });
      return { ...upload, headers: Object.entries(upload.headers).map(([name, value]) => ({ name, value })), expiresAt: iso(upload.expiresAt) };
    }),
    setProductImage: staffField(async (args, { tx }, context) => {
      const product = await setProductImage(tx, context.shop.services.deps, requireFileStorage(context), parseId(args.productId, 'productId'), args.key ?? null);
      return productModelView(product);
    }),
  },
};
