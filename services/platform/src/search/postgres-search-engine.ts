import { Prisma } from '../generated/prisma/client.ts';
import type { SearchDocument, SearchEngine, SearchHit, SearchQuery } from './search-engine.ts';
import { prefixQuery, searchWords } from './search-words.ts';

/**
 * The search engine in PostgreSQL's full text (search_documents), the default when no search URL is set.
 * Given a transaction it writes in it, so an event handler's index update commits with the event's record.
 */
export function postgresSearchEngine(db: Prisma.TransactionClient): SearchEngine {
  const index = async (indexName: string, documents: readonly SearchDocument[]) => {
    if (documents.length === 0) return;
    await db.$executeRaw`
      INSERT INTO search_documents (index_name, id, filters, data, search_vector, indexed_at)
      SELECT ${indexName}, d.id, d.filters, d.data,
             setweight(to_tsvector('simple', d.title), 'A') || setweight(to_tsvector('simple', d.body), 'B'), now()
      FROM jsonb_to_recordset(${JSON.stringify(rowsOf(documents))}::jsonb) AS d(id text, title text, body text, filters jsonb, data jsonb)
      ON CONFLICT (index_name, id) DO UPDATE
        SET filters = excluded.filters, data = excluded.data, search_vector = excluded.search_vector, indexed_at = excluded.indexed_at`;
  };

  return {
    index,

    async delete(indexName, ids) {
      if (ids.length === 0) return;
      await db.$executeRaw`DELETE FROM search_documents WHERE index_name = ${indexName} AND id = ANY(${[...ids]}::text[])`;
    },

    async search(indexName, query) {
      const rows = await db.$queryRaw<(SearchHit & { total: bigint })[]>`
        SELECT id, data, count(*) OVER () AS total
        FROM search_documents
        WHERE ${matching(indexName, query)}
        ORDER BY ${rank(query)} DESC, indexed_at DESC, id
        LIMIT ${query.limit} OFFSET ${query.offset}`;
      return { hits: rows.map(({ id, data }) => ({ id, data })), total: Number(rows[0]?.total ?? (await countAll(db, indexName, query))) };
    },

    // What no batch held is deleted by id, which depends on no clock: comparing indexed_at with a start
    // time read by another statement once let a stale document survive in CI.
    async rebuild(indexName, batches) {
      const kept: string[] = [];
      for await (const documents of batches) {
        await index(indexName, documents);
        for (const { id } of documents) kept.push(id);
      }
      await db.$executeRaw`DELETE FROM search_documents WHERE index_name = ${indexName} AND NOT (id = ANY(${kept}::text[]))`;
    },

    async lastIndexedAt(indexName) {
      const [{ last }] = await db.$queryRaw<[{ last: Date | null }]>`
        SELECT max(indexed_at) AS last FROM search_documents WHERE index_name = ${indexName}`;
      return last ?? undefined;
    },
  };
}

/** The last of several documents with one id wins, as if indexed one after the other (one INSERT cannot update a row twice). */
function rowsOf(documents: readonly SearchDocument[]) {
  const byId = new Map(documents.map((document) => [document.id, document]));
  return [...byId.values()].map(({ id, title, body, filters, data }) => ({
    id,
    title: searchWords(title).join(' '),
    body: searchWords(body).join(' '),
    filters,
    data,
  }));
}

/** The documents of the index that pass the filters (by jsonb containment) and hold every word of the text. */
function matching(indexName: string, query: SearchQuery): Prisma.Sql {
  const filters = Object.fromEntries(Object.entries(query.filters ?? {}).map(([name, value]) => [name, [value]]));
  const tsquery = prefixQuery(query.text);
  const words = tsquery === '' ? Prisma.empty : Prisma.sql`AND search_vector @@ to_tsquery('simple', ${tsquery})`;
  return Prisma.sql`index_name = ${indexName} AND filters @> ${JSON.stringify(filters)}::jsonb ${words}`;
}

function rank(query: SearchQuery): Prisma.Sql {
  const tsquery = prefixQuery(query.text);
  return tsquery === '' ? Prisma.sql`0::real` : Prisma.sql`ts_rank(search_vector, to_tsquery('simple', ${tsquery}))`;
}

/** The total when the page is past the last match (it holds no row to carry the window count). */
async function countAll(db: Prisma.TransactionClient, indexName: string, query: SearchQuery): Promise<bigint> {
  if (query.offset === 0) return 0n;
  const [{ total }] = await db.$queryRaw<[{ total: bigint }]>`
    SELECT count(*) AS total FROM search_documents WHERE ${matching(indexName, query)}`;
  return total;
}
