import type { OrderStatus } from '@shop/platform';
import { cancelOrder, checkout, type PlaceOrderInput as Checkout } from '@shop/domain/flows';
import { notFound, type DomainDeps, type Tx } from '@shop/domain/kernel';
import {
  approveOrder,
  changeOrderAddresses,
  completeOrder,
  findOrder,
  fulfilOrder,
  listOrders,
  markOrderPaid,
  type Address,
  type OrderWithLines,
} from '@shop/domain/orders';
import { GATEWAY_TRANSACTION } from '@shop/domain/tenders';
import type { AddressInput, PlaceOrderInput, Resolvers } from '../graphql/generated/resolver-types.ts';
import { decodeCursor, pageOf, pageSize, parseId } from '../graphql/ids.ts';
import { inputMapper, optional, optionalOf, same } from '../graphql/inputs.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { orderView } from './views.ts';

interface PageArgs {
  readonly first: number;
  readonly after?: string | null;
}

/** A page of orders, newest first; the cursor is the last order's id. */
async function orderPage(db: Tx, filter: { customerId?: bigint; status?: OrderStatus }, args: PageArgs) {
  const size = pageSize(args.first);
  const beforeId = decodeCursor('order', args.after);
  const orders = await listOrders(db, { ...filter, limit: size + 1, ...(beforeId === undefined ? {} : { beforeId }) });
  return pageOf('order', orders, size, orderView);
}

/** GraphQL's null line2 is "no second line", as the domain's absent one. */
const addressOf = ({ line2, ...address }: AddressInput): Address => ({ ...address, ...(line2 == null ? {} : { line2 }) });

const checkoutInput = inputMapper<PlaceOrderInput, Checkout>({
  cartId: parseId,
  email: same,
  billingAddress: addressOf,
  shippingAddress: optionalOf(addressOf),
  idempotencyKey: optional,
  card: optional,
  useStoreCredit: optional,
  giftCardCode: optional,
});

type Transition = (tx: Tx, deps: DomainDeps, orderId: bigint) => Promise<OrderWithLines>;

const transition = (move: Transition) =>
  staffField(async ({ id }: { id: string }, { tx }, context) => orderView(await move(tx, context.shop.services.deps, parseId(id, 'id'))));

export const orderResolvers: Resolvers = {
  Query: {
    async myOrders(_root, args, context) {
      const { customerId } = context.shop.customer();
      return orderPage(context.shop.services.prisma, { customerId }, args);
    },
    orders: staffField(async (args, { tx }) => orderPage(tx, args.status == null ? {} : { status: args.status }, args)),
    order: staffField(async ({ id }, { tx }) => {
      const orderId = parseId(id, 'id');
      const order = await findOrder(tx, orderId);
      if (order === null) throw notFound('order', orderId, 'id');
      return orderView(order);
    }),
  },
  Mutation: {
    async placeOrder(_root, { input }, context) {
      const { transaction, deps } = context.shop.services;
      return orderView(await checkout(transaction, deps, { ...checkoutInput(input), shopper: context.shop.shopper }));
    },
    approveOrder: transition(approveOrder),
    markOrderPaid: transition(markOrderPaid),
    fulfilOrder: transition(fulfilOrder),
    completeOrder: transition(completeOrder),
    cancelOrder: staffField(
      async ({ id, reason }, { tx }, context) => orderView(await cancelOrder(tx, context.shop.services.deps, parseId(id, 'id'), reason)),
      GATEWAY_TRANSACTION,
    ),
    changeOrderAddresses: staffField(async (args, { tx }, context) => {
      const change = {
        ...(args.shippingAddress == null ? {} : { shippingAddress: addressOf(args.shippingAddress) }),
        ...(args.billingAddress == null ? {} : { billingAddress: addressOf(args.billingAddress) }),
      };
      return orderView(await changeOrderAddresses(tx, context.shop.services.deps, parseId(args.id, 'id'), change));
    }),
  },
};
