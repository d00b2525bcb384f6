import type { RefundRequestView } from '@shop/domain';

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

/** A refund request as GraphQL shows it: times as ISO strings. */
export const refundRequestView = (request: RefundRequestView) => ({
  ...request,
  createdAt: request.createdAt.toISOString(),
  refunds: request.refunds.map((refund) => ({ ...refund, settlesAt: iso(refund.settlesAt), settledAt: iso(refund.settledAt) })),
});
