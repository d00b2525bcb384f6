import { refundToStoreCredit, requestRefund, retryRefund } from '@shop/domain/refunds';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import { parseId } from '../graphql/ids.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { refundRequestView } from './views.ts';

export const refundResolvers: Resolvers = {
  Mutation: {
    requestRefund: staffField(async ({ input }, { tx, staffUserId }, context) => {
      const orderId = parseId(input.orderId, 'orderId');
      return refundRequestView(await requestRefund(tx, context.shop.services.deps, { ...input, orderId, source: { kind: 'STAFF', staffUserId } }));
    }),
    retryRefund: staffField(async ({ refundId }, { tx }, context) => refundRequestView(await retryRefund(tx, context.shop.services.deps, parseId(refundId, 'refundId')))),
    refundToStoreCredit: staffField(async ({ refundId }, { tx }, context) =>
      refundRequestView(await refundToStoreCredit(tx, context.shop.services.deps, parseId(refundId, 'refundId'))),
    ),
  },
};
