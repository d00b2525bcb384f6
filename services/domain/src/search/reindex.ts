import type { SearchDocument, SearchEngine } from '@shop/platform';
import type { Tx } from '../kernel/index.ts';
import { customerDocuments } from './customer-documents.ts';
import { orderDocuments } from './order-documents.ts';
import { productDocuments } from './product-documents.ts';
import { ADMIN_INDEX, SEARCH_INDEXES, STOREFRONT_INDEX, type SearchIndexName } from './search-indexes.ts';

export interface ReindexProgress {
  readonly index: SearchIndexName;
  /** Rows read so far in this index's rebuild. */
  readonly done: number;
  /** Rows counted at the start and not read yet; never below 0, though rows added meanwhile are read too. */
  readonly left: number;
  readonly rowsPerSecond: number;
}

export interface ReindexOptions {
  readonly indexes?: readonly SearchIndexName[];
  readonly batchSize?: number;
  readonly onProgress?: (progress: ReindexProgress) => void;
}

/** A table read in id order, a batch of ids at a time, and the documents its rows make. */
interface DocumentSource {
  count(): Promise<number>;
  idsAfter(afterId: bigint, take: number): Promise<bigint[]>;
  documents(ids: readonly bigint[]): Promise<SearchDocument[]>;
}

const after = (afterId: bigint, take: number) => ({
  where: { id: { gt: afterId } },
  select: { id: true },
  orderBy: { id: 'asc' as const },
  take,
});
const idsOf = (rows: { id: bigint }[]) => rows.map((row) => row.id);

function sources(db: Tx): Record<SearchIndexName, DocumentSource[]> {
  const products: Omit<DocumentSource, 'documents'> = {
    count: () => db.product.count(),
    idsAfter: async (afterId, take) => idsOf(await db.product.findMany(after(afterId, take))),
  };
  return {
    [ADMIN_INDEX]: [
      {
        count: () => db.order.count(),
        idsAfter: async (id, take) => idsOf(await db.order.findMany(after(id, take))),
        documents: (ids) => orderDocuments(db, ids),
      },
      {
        count: () => db.customer.count(),
        idsAfter: async (id, take) => idsOf(await db.customer.findMany(after(id, take))),
        documents: (ids) => customerDocuments(db, ids),
      },
      { ...products, documents: async (ids) => (await productDocuments(db, ids)).admin },
    ],
    [STOREFRONT_INDEX]: [{ ...products, documents: async (ids) => (await productDocuments(db, ids)).storefront }],
  };
}

/**
 * Rebuilds search indexes from PostgreSQL: every document is written anew and documents of rows that are
 * gone disappear. Searches keep answering meanwhile, and events keep being indexed.
 */
export async function reindexSearch(
  db: Tx,
  engine: SearchEngine,
  options: ReindexOptions = {},
): Promise<{ rows: number; seconds: number }> {
  const batchSize = options.batchSize ?? 500;
  const started = performance.now();
  let rows = 0;
  for (const index of options.indexes ?? SEARCH_INDEXES) {
    const indexSources = sources(db)[index];
    const total = (await Promise.all(indexSources.map((source) => source.count()))).reduce((sum, count) => sum + count, 0);
    const indexStarted = performance.now();
    let done = 0;
    async function* batches(): AsyncIterable<SearchDocument[]> {
      for (const source of indexSources) {
        for (let ids = await source.idsAfter(0n, batchSize); ids.length > 0; ids = await source.idsAfter(ids.at(-1) as bigint, batchSize)) {
          yield await source.documents(ids);
          done += ids.length;
          const seconds = (performance.now() - indexStarted) / 1000;
          options.onProgress?.({ index, done, left: Math.max(total - done, 0), rowsPerSecond: seconds > 0 ? done / seconds : 0 });
        }
      }
    }
    await engine.rebuild(index, batches());
    rows += done;
  }
  return { rows, seconds: (performance.now() - started) / 1000 };
}
