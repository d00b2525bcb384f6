import type { SearchDocument, SearchEngine } from '@shop/platform';
import type { Tx } from '../context.ts';
import { customerDocuments } from './customer-documents.ts';
import { orderDocuments } from './order-documents.ts';
import { ADMIN_INDEX, adminDocumentId } from './search-indexes.ts';

/** Writes the documents built, and deletes those of the ids that built none (the row is gone). */
async function replaceDocuments(engine: SearchEngine, indexName: string, ids: readonly string[], documents: readonly SearchDocument[]): Promise<void> {
  await engine.index(indexName, documents);
  const built = new Set(documents.map((document) => document.id));
  await engine.delete(indexName, ids.filter((id) => !built.has(id)));
}

/** Brings the admin documents of these orders in line with their rows. */
export async function refreshOrders(tx: Tx, engine: SearchEngine, ids: readonly bigint[]): Promise<void> {
  const documentIds = ids.map((id) => adminDocumentId('order', id));
  await replaceDocuments(engine, ADMIN_INDEX, documentIds, await orderDocuments(tx, ids));
}

/** Brings the admin documents of these customers in line with their rows. */
export async function refreshCustomers(tx: Tx, engine: SearchEngine, ids: readonly bigint[]): Promise<void> {
  const documentIds = ids.map((id) => adminDocumentId('customer', id));
  await replaceDocuments(engine, ADMIN_INDEX, documentIds, await customerDocuments(tx, ids));
}
