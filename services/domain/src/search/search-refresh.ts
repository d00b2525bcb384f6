import type { SearchDocument, SearchEngine, SearchEngines } from '@shop/platform';
import { idString, type Tx } from '../kernel/index.ts';
import { customerDocuments } from './customer-documents.ts';
import { orderDocuments } from './order-documents.ts';
import { productDocuments } from './product-documents.ts';
import { ADMIN_INDEX, STOREFRONT_INDEX, adminDocumentId } from './search-indexes.ts';

/** Writes the documents built, and deletes those of the ids that built none (the row is gone). */
async function replaceDocuments(
  engine: SearchEngine,
  indexName: string,
  ids: readonly string[],
  documents: readonly SearchDocument[],
): Promise<void> {
  await engine.index(indexName, documents);
  const built = new Set(documents.map((document) => document.id));
  await engine.delete(
    indexName,
    ids.filter((id) => !built.has(id)),
  );
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

/** Brings the admin and storefront documents of these products in line with their rows (an inactive or unlisted product has no storefront one). */
export async function refreshProducts(tx: Tx, engines: SearchEngines, ids: readonly bigint[]): Promise<void> {
  const documents = await productDocuments(tx, ids);
  await replaceDocuments(
    engines.admin,
    ADMIN_INDEX,
    ids.map((id) => adminDocumentId('product', id)),
    documents.admin,
  );
  await replaceDocuments(engines.storefront, STOREFRONT_INDEX, ids.map(idString), documents.storefront);
}
