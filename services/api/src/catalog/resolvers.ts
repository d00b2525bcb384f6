import { listBrands, listChannels, storefrontProduct, storefrontProducts, topCategories } from '@shop/domain/catalog';
import { DomainError } from '@shop/domain/kernel';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { decodeCursor, pageOf, pageSize, parseOptionalId } from '../graphql/ids.ts';
import { optionalArgument } from '../graphql/text-arguments.ts';
import { imageUrlOf } from '../storage/api-file-storage.ts';
import { brandView, categoryView, channelView, storefrontProductView } from './views.ts';

const SEARCH_MAX_LENGTH = 200;
const SLUG_MAX_LENGTH = 300;

/** What a storefront browses: products of the channel, categories, brands and channels. */
export const catalogResolvers: Resolvers = {
  Query: {
    async products(_root, args, context) {
      const size = pageSize(args.first);
      const afterId = decodeCursor('product', args.after);
      const brandId = parseOptionalId(args.brandId, 'brandId');
      const categoryId = parseOptionalId(args.categoryId, 'categoryId');
      const search = optionalArgument(args.search, 'search', SEARCH_MAX_LENGTH);
      const products = await storefrontProducts(context.shop.services.sql, {
        channelId: await context.shop.channelId(),
        limit: size + 1,
        ...(afterId === undefined ? {} : { afterId }),
        ...(brandId === undefined ? {} : { brandId }),
        ...(categoryId === undefined ? {} : { categoryId }),
        ...(search === undefined ? {} : { search }),
      });
      return pageOf('product', products, size, storefrontProductView);
    },
    async product(_root, args, context) {
      const id = parseOptionalId(args.id, 'id');
      const slug = optionalArgument(args.slug, 'slug', SLUG_MAX_LENGTH);
      if ((id === undefined) === (slug === undefined))
        throw new DomainError('BAD_USER_INPUT', 'give either id or slug', { field: id === undefined ? 'id' : 'slug' });
      const product = await storefrontProduct(
        context.shop.services.sql,
        await context.shop.channelId(),
        id === undefined ? { slug: slug ?? '' } : { id },
      );
      return product === null ? null : storefrontProductView(product);
    },
    async categories(_root, _args, context) {
      return (await topCategories(context.shop.services.prisma)).map(categoryView);
    },
    async brands(_root, _args, context) {
      return (await listBrands(context.shop.services.prisma)).map(brandView);
    },
    async channels(_root, _args, context) {
      return (await listChannels(context.shop.services.prisma)).map(channelView);
    },
  },
  Product: {
    // From the key read with the product: no query.
    imageUrl: (product, _args, context) => imageUrlOf(context, product.imageKey),
  },
};
