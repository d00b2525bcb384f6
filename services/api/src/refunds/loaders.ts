import type { MercuriusContext, MercuriusLoaders } from 'mercurius';
import { refundRequestsOfOrders } from '@shop/domain';
import { refundRequestView } from './views.ts';

/** Each order's refund requests, one query per page of orders. Whoever reads an Order may read them, as its tenders. */
export const refundLoaders: MercuriusLoaders = {
  Order: {
    async refundRequests(queries: { readonly obj: { readonly id: string } }[], context: MercuriusContext) {
      const byOrder = await refundRequestsOfOrders(context.shop.services.prisma, [...new Set(queries.map(({ obj }) => BigInt(obj.id)))]);
      return queries.map(({ obj }) => (byOrder.get(BigInt(obj.id)) ?? []).map(refundRequestView));
    },
  },
};
