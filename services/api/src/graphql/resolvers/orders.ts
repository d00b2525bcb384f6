import type { IResolvers } from 'mercurius';
import type { OrderStatus, Prisma } from '@shop/platform';
import {
  approveOrder,
  cancelOrder,
  changeOrderAddresses,
  completeOrder,
  fulfilOrder,
  markOrderPaid,
  type Address,
  type DomainDeps,
  type OrderWithLines,
  type Tx,
} from '@shop/domain';
import { decodeCursor, pageOf, pageSize, parseId } from '../ids.ts';
import { orderView } from '../views.ts';
import { asStaff, notFound, type Context } from './common.ts';

interface PageArgs {
  readonly first?: number | null;
  readonly after?: string | null;
}

const LINES = { lines: { orderBy: { id: 'asc' } } } as const satisfies Prisma.OrderInclude;

/** Newest first, by id: a cursor stays valid while new orders come in (they sort before it). */
async function orderPage(tx: Tx, where: Prisma.OrderWhereInput, args: PageArgs) {
  const size = pageSize(args.first);
  const before = decodeCursor('order', args.after);
  const rows = await tx.order.findMany({
    where: { ...where, ...(before === undefined ? {} : { id: { lt: before } }) },
    include: LINES,
    orderBy: { id: 'desc' },
    take: size + 1,
  });
  return pageOf('order', rows, size, orderView);
}

type Transition = (tx: Tx, deps: DomainDeps, orderId: bigint) => Promise<OrderWithLines>;

function transition(move: Transition) {
  return async (_root: unknown, { id }: { id: string }, context: Context) => {
    const orderId = parseId(id, 'id');
    return orderView(await asStaff(context, 'orders.manage', (tx) => move(tx, context.shop.services.deps, orderId)));
  };
}

export const orderResolvers: IResolvers = {
  Query: {
    async myOrders(_root: unknown, args: PageArgs, context: Context) {
      const { customerId } = context.shop.customer();
      return orderPage(context.shop.services.prisma, { customerId }, args);
    },
    async orders(_root: unknown, args: PageArgs & { status?: OrderStatus | null }, context: Context) {
      return asStaff(context, 'orders.read', (tx) => orderPage(tx, args.status == null ? {} : { status: args.status }, args));
    },
    async order(_root: unknown, { id }: { id: string }, context: Context) {
      const orderId = parseId(id, 'id');
      const order = await asStaff(context, 'orders.read', (tx) => tx.order.findUnique({ where: { id: orderId }, include: LINES }));
      if (order === null) throw notFound('order', orderId, 'id');
      return orderView(order);
    },
  },
  Mutation: {
    approveOrder: transition(approveOrder),
    markOrderPaid: transition(markOrderPaid),
    fulfilOrder: transition(fulfilOrder),
    completeOrder: transition(completeOrder),
    async cancelOrder(_root: unknown, { id, reason }: { id: string; reason: string }, context: Context) {
      const orderId = parseId(id, 'id');
      return orderView(await asStaff(context, 'orders.manage', (tx) => cancelOrder(tx, context.shop.services.deps, orderId, reason)));
    },
    async changeOrderAddresses(
      _root: unknown,
      args: { id: string; shippingAddress?: Address | null; billingAddress?: Address | null },
      context: Context,
    ) {
      const orderId = parseId(args.id, 'id');
      const change = {
        ...(args.shippingAddress == null ? {} : { shippingAddress: args.shippingAddress }),
        ...(args.billingAddress == null ? {} : { billingAddress: args.billingAddress }),
      };
      return orderView(await asStaff(context, 'orders.manage', (tx) => changeOrderAddresses(tx, context.shop.services.deps, orderId, change)));
    },
  },
};
