import type { MercuriusContext, MercuriusLoaders } from 'mercurius';
import { holdsPermission } from '@shop/domain/auth';
import { refundRequestsOfOrders } from '@shop/domain/refunds';
import { customerRefundRequestView, refundRequestView } from './views.ts';

/** Staff who may read orders see the whole request; anyone else (the customer, a guest) the customer's view. */
async function viewFor(context: MercuriusContext) {
  const { principal, services } = context.shop;
  const staff = principal?.kind === 'staff' && (await holdsPermission(services.prisma, principal.staffUserId, 'orders.read'));
  return staff ? refundRequestView : customerRefundRequestView;
}

/** Each order's refund requests, one query per page of orders. Whoever reads an Order may read them, as its tenders. */
export const refundLoaders: MercuriusLoaders = {
  Order: {
    async refundRequests(queries: { readonly obj: { readonly id: string } }[], context: MercuriusContext) {
      const byOrder = await refundRequestsOfOrders(context.shop.services.prisma, [...new Set(queries.map(({ obj }) => BigInt(obj.id)))]);
      const view = await viewFor(context);
      return queries.map(({ obj }) => (byOrder.get(BigInt(obj.id)) ?? []).map(view));
    },
  },
};
