import type { MercuriusContext, MercuriusLoaders } from 'mercurius';
import { returnsOfOrders } from '@shop/domain/returns';
import { returnView } from './views.ts';

/** Each order's returns, one query per page of orders. Whoever reads an Order may read its returns, as its tenders. */
export const returnLoaders: MercuriusLoaders = {
  Order: {
    async returns(queries: { readonly obj: { readonly id: string } }[], context: MercuriusContext) {
      const byOrder = await returnsOfOrders(context.shop.services.prisma, [...new Set(queries.map(({ obj }) => BigInt(obj.id)))]);
      return queries.map(({ obj }) => (byOrder.get(BigInt(obj.id)) ?? []).map(returnView));
    },
  },
};
