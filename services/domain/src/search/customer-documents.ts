import type { SearchDocument } from '@shop/platform';
import { idString, type Tx } from '../kernel/index.ts';
import { adminDocumentId } from './search-indexes.ts';
import { searchText } from './search-text.ts';

/** The admin documents of the customers with these ids that exist: found by name and email. */
export async function customerDocuments(tx: Tx, ids: readonly bigint[]): Promise<SearchDocument[]> {
  const customers = await tx.customer.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, channelId: true, email: true, firstName: true, lastName: true, isBusiness: true, createdAt: true },
    orderBy: { id: 'asc' },
  });
  return customers.map((customer) => {
    const name = searchText([customer.firstName, customer.lastName]);
    return {
      id: adminDocumentId('customer', customer.id),
      title: name === '' ? customer.email : name,
      body: customer.email,
      filters: { kind: ['customer'], channel: [idString(customer.channelId)], business: [String(customer.isBusiness)] },
      data: {
        kind: 'customer',
        id: idString(customer.id),
        email: customer.email,
        firstName: customer.firstName,
        lastName: customer.lastName,
        isBusiness: customer.isBusiness,
        createdAt: customer.createdAt.toISOString(),
      },
    };
  });
}
