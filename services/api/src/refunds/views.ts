import type { RefundRequestView } from '@shop/domain/refunds';
import { iso } from '../graphql/iso.ts';

/** A refund request as GraphQL shows it to staff: times as ISO strings. */
export const refundRequestView = (request: RefundRequestView) => ({
  ...request,
  createdAt: iso(request.createdAt),
  refunds: request.refunds.map((refund) => ({ ...refund, settlesAt: iso(refund.settlesAt), settledAt: iso(refund.settledAt) })),
});

/** The customer's view: without who on the staff asked, nor the gateway's words on why a refund failed. */
export const customerRefundRequestView = (request: RefundRequestView) => {
  const view = refundRequestView(request);
  return { ...view, staffUserId: null, refunds: view.refunds.map((refund) => ({ ...refund, lastError: null })) };
};
