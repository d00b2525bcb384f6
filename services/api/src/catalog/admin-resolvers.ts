import {
  createBrand,
  createCategory,
  createChannel,
  createProduct,
  deleteBrand,
  deleteCategory,
  deleteProduct,
  productImageUpload,
  setProductImage,
  updateBrand,
  updateCategory,
  updateProduct,
} from '@shop/domain/catalog';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { parseId } from '../graphql/ids.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { requireFileStorage } from '../storage/api-file-storage.ts';
import { brandInput, brandPatch, categoryInput, categoryPatch, channelInput, productInput, productPatch } from './inputs.ts';
import { brandView, categoryView, channelView, productModelView } from './views.ts';
import { iso } from '../graphql/iso.ts';

/** Staff changes to the catalog; each runs in the transaction its permission is checked in. */
export const catalogAdminResolvers: Resolvers = {
  Mutation: {
    createChannel: staffField(async ({ input }, { tx }) => channelView(await createChannel(tx, channelInput(input)))),
    createBrand: staffField(async ({ input }, { tx }) => brandView(await createBrand(tx, brandInput(input)))),
    updateBrand: staffField(async (args, { tx }, context) =>
      brandView(await updateBrand(tx, context.shop.services.deps, parseId(args.id, 'id'), brandPatch(args.input))),
    ),
    deleteBrand: staffField(async (args, { tx }, context) => {
      await deleteBrand(tx, context.shop.services.deps, parseId(args.id, 'id'));
      return args.id;
    }),
    createCategory: staffField(async ({ input }, { tx }) => categoryView(await createCategory(tx, categoryInput(input)))),
    updateCategory: staffField(async (args, { tx }, context) =>
      categoryView(await updateCategory(tx, context.shop.services.deps, parseId(args.id, 'id'), categoryPatch(args.input))),
    ),
    deleteCategory: staffField(async (args, { tx }, context) => {
      await deleteCategory(tx, context.shop.services.deps, parseId(args.id, 'id'));
      return args.id;
    }),
    createProduct: staffField(async ({ input }, { tx }, context) =>
      productModelView(await createProduct(tx, context.shop.services.deps, productInput(input))),
    ),
    updateProduct: staffField(async (args, { tx }, context) =>
      productModelView(await updateProduct(tx, context.shop.services.deps, parseId(args.id, 'id'), productPatch(args.input))),
    ),
    deleteProduct: staffField(async (args, { tx }, context) => {
      await deleteProduct(tx, context.shop.services.deps, parseId(args.id, 'id'));
      return args.id;
    }),
    createProductImageUpload: staffField(async (args, { tx }, context) => {
      const upload = await productImageUpload(tx, requireFileStorage(context), parseId(args.productId, 'productId'), {
        contentType: args.contentType,
        sizeBytes: args.sizeBytes,
      });
      return {
        ...upload,
        headers: Object.entries(upload.headers).map(([name, value]) => ({ name, value })),
        expiresAt: iso(upload.expiresAt),
      };
    }),
    setProductImage: staffField(async (args, { tx }, context) => {
      const product = await setProductImage(
        tx,
        context.shop.services.deps,
        requireFileStorage(context),
        parseId(args.productId, 'productId'),
        args.key ?? null,
      );
      return productModelView(product);
    }),
  },
};
