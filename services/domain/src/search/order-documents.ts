import type { SearchDocument } from '@shop/platform';
import { idString, moneyString, type Tx } from '../kernel/index.ts';
import { adminDocumentId } from './search-indexes.ts';
import { searchText } from './search-text.ts';

/** The admin documents of the orders with these ids that exist: found by number, email, names and what was bought. */
export async function orderDocuments(tx: Tx, ids: readonly bigint[]): Promise<SearchDocument[]> {
  const orders = await tx.order.findMany({
    where: { id: { in: [...ids] } },
    include: { lines: { select: { sku: true, productName: true } }, customer: { select: { firstName: true, lastName: true } } },
    orderBy: { id: 'asc' },
  });
  return orders.map((order) => ({
    id: adminDocumentId('order', order.id),
    title: order.number,
    body: searchText([
      order.email,
      order.customer?.firstName,
      order.customer?.lastName,
      addressName(order.billingAddress),
      addressName(order.shippingAddress),
      ...order.lines.flatMap((line) => [line.sku, line.productName]),
    ]),
    filters: { kind: ['order'], channel: [idString(order.channelId)], status: [order.status] },
    data: {
      kind: 'order',
      id: idString(order.id),
      number: order.number,
      status: order.status,
      email: order.email,
      currency: order.currency,
      total: moneyString(order.total, order.currency),
      placedAt: order.placedAt.toISOString(),
    },
  }));
}

/** Addresses are JSON ({ name, line1, ... }); an address without a string name adds nothing. */
function addressName(address: unknown): string | undefined {
  const name = (address as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}
