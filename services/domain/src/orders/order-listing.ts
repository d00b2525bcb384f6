import type { OrderStatus, Prisma } from '@shop/platform';
import type { Tx } from '../kernel/index.ts';
import type { OrderWithLines } from './order-events.ts';

const LINES = { lines: { orderBy: { id: 'asc' } } } as const satisfies Prisma.OrderInclude;

export interface OrderListing {
  /** One customer's orders; every order without it. */
  readonly customerId?: bigint;
  readonly status?: OrderStatus;
  /** Orders older than this id. */
  readonly beforeId?: bigint;
  readonly limit: number;
}

/** Newest first, by id: a page boundary stays valid while new orders come in (they sort before it). */
export async function listOrders(db: Tx, listing: OrderListing): Promise<OrderWithLines[]> {
  const { customerId, status, beforeId } = listing;
  return db.order.findMany({
    where: {
      ...(customerId === undefined ? {} : { customerId }),
      ...(status === undefined ? {} : { status }),
      ...(beforeId === undefined ? {} : { id: { lt: beforeId } }),
    },
    include: LINES,
    orderBy: { id: 'desc' },
    take: listing.limit,
  });
}

/** The order with its lines in id order, or null. */
export async function findOrder(db: Tx, orderId: bigint): Promise<OrderWithLines | null> {
  return db.order.findUnique({ where: { id: orderId }, include: LINES });
}
