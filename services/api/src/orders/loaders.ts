import type { MercuriusContext, MercuriusLoaders } from 'mercurius';
import { tendersOfOrders } from '@shop/domain/tenders';
import { tenderView } from './views.ts';

/**
 * Each order's tenders, one query per page of orders. Whoever reads an Order may read its tenders:
 * staff with orders.read, a customer their own orders, a shopper the order they just placed.
 */
export const orderLoaders: MercuriusLoaders = {
  Order: {
    async tenders(queries: { readonly obj: { readonly id: string } }[], context: MercuriusContext) {
      const byOrder = await tendersOfOrders(context.shop.services.prisma, [...new Set(queries.map(({ obj }) => BigInt(obj.id)))]);
      return queries.map(({ obj }) => (byOrder.get(BigInt(obj.id)) ?? []).map(tenderView));
    },
  },
};
