import type { MercuriusContext, MercuriusLoaders } from 'mercurius';
import { productsByIds } from '@shop/domain/catalog';
import { productView } from '../catalog/views.ts';
import type { CartLineView } from './views.ts';

/** Each line's product, visible or not (a cart shows what it holds): one query per cart. */
export const cartLoaders: MercuriusLoaders = {
  CartLine: {
    async product(queries: { readonly obj: CartLineView }[], context: MercuriusContext) {
      const byId = await productsByIds(context.shop.services.sql, [...new Set(queries.map(({ obj }) => obj.productKey))]);
      return queries.map(({ obj }) => {
        const product = byId.get(obj.productKey);
        return product === undefined ? null : productView(product);
      });
    },
  },
};
