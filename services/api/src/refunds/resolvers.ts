import { refundToStoreCredit, requestRefund, type RequestRefundInput, retryRefund } from '@shop/domain/refunds';
import type { RequestRefundInput as RequestRefundArguments, Resolvers } from '../graphql/generated/resolver-types.ts';
import { parseId } from '../graphql/ids.ts';
import { inputMapper, same } from '../graphql/inputs.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { refundRequestView } from './views.ts';

const refundRequest = inputMapper<RequestRefundArguments, RequestRefundInput>({
  orderId: parseId,
  amount: same,
  reason: same,
  idempotencyKey: same,
});

export const refundResolvers: Resolvers = {
  Mutation: {
    requestRefund: staffField(async ({ input }, { tx, staffUserId }, context) => {
      return refundRequestView(
        await requestRefund(tx, context.shop.services.deps, { ...refundRequest(input), source: { kind: 'STAFF', staffUserId } }),
      );
    }),
    retryRefund: staffField(async ({ refundId }, { tx }, context) =>
      refundRequestView(await retryRefund(tx, context.shop.services.deps, parseId(refundId, 'refundId'))),
    ),
    refundToStoreCredit: staffField(async ({ refundId }, { tx }, context) =>
      refundRequestView(await refundToStoreCredit(tx, context.shop.services.deps, parseId(refundId, 'refundId'))),
    ),
  },
};
