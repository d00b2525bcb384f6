import type { EnqueuedTaskPromise, Meilisearch } from 'meilisearch';
import type { SearchDocument, SearchEngine } from '../search-engine.ts';
import {
  meiliFilter,
  meiliIndexSettings,
  meiliIndexUid,
  meiliKey,
  PRIMARY_KEY,
  toMeiliDocument,
  toSearchHit,
  type MeiliDocument,
} from './meilisearch-mapping.ts';

/** Meilisearch works through tasks: the write is done once its task succeeded, and failed otherwise. */
async function settled(task: EnqueuedTaskPromise, unless?: string): Promise<void> {
  const done = await task.waitTask();
  if (done.status === 'succeeded' || (unless !== undefined && done.error?.code === unless)) return;
  throw new Error(`Meilisearch task ${done.uid} (${done.type}) ${done.status}: ${done.error?.message ?? 'no reason given'}`);
}

/**
 * The search engine in Meilisearch (docs/search.md), selected per index by ADMIN_SEARCH_URL and
 * STOREFRONT_SEARCH_URL. Each port index is the Meilisearch index `meiliIndexUid(name)`.
 * Not verified against a running Meilisearch: see docs/search.md.
 */
export function meilisearchSearchEngine(connect: () => Promise<Meilisearch>): SearchEngine {
  let connecting: Promise<Meilisearch> | undefined;
  // Connected at the first call, so a process whose indexes are all in PostgreSQL never loads the client.
  const clientOf = () => (connecting ??= connect());
  const configured = new Map<string, Promise<void>>();
  // Created and configured once per index and process; both steps may be repeated safely.
  const ensure = (uid: string) => {
    let ready = configured.get(uid);
    if (ready === undefined) {
      ready = (async () => {
        const client = await clientOf();
        await settled(client.createIndex(uid, { primaryKey: PRIMARY_KEY }), 'index_already_exists');
        await settled(client.index(uid).updateSettings(meiliIndexSettings()));
      })();
      ready.catch(() => configured.delete(uid));
      configured.set(uid, ready);
    }
    return ready;
  };
  const write = async (uid: string, documents: readonly SearchDocument[]) => {
    if (documents.length === 0) return;
    const client = await clientOf();
    const now = new Date();
    // The last of duplicate ids wins, as in the PostgreSQL engine.
    const byKey = new Map(documents.map((document) => [meiliKey(document.id), toMeiliDocument(document, now)]));
    await settled(client.index<MeiliDocument>(uid).addDocuments([...byKey.values()], { primaryKey: PRIMARY_KEY }));
  };

  return {
    async index(indexName, documents) {
      await ensure(meiliIndexUid(indexName));
      await write(meiliIndexUid(indexName), documents);
    },

    async delete(indexName, ids) {
      if (ids.length === 0) return;
      await ensure(meiliIndexUid(indexName));
      const client = await clientOf();
      await settled(client.index(meiliIndexUid(indexName)).deleteDocuments(ids.map(meiliKey)));
    },

    async search(indexName, query) {
      await ensure(meiliIndexUid(indexName));
      const client = await clientOf();
      const response = await client.index<MeiliDocument>(meiliIndexUid(indexName)).search(query.text, {
        filter: meiliFilter(query.filters),
        limit: query.limit,
        offset: query.offset,
        // Every word must be present, as the port says; Meilisearch's default drops words from the end.
        matchingStrategy: 'all',
      });
      return { hits: response.hits.map(toSearchHit), total: response.estimatedTotalHits };
    },

    async rebuild(indexName, batches) {
      // Built aside, then swapped in whole: searches read the old index until the swap.
      const uid = meiliIndexUid(indexName);
      const aside = `${uid}_rebuild`;
      const client = await clientOf();
      await client.deleteIndexIfExists(aside);
      await ensure(uid);
      configured.delete(aside);
      await ensure(aside);
      for await (const batch of batches) await write(aside, batch);
      await settled(client.swapIndexes([{ indexes: [uid, aside], rename: false }]));
      await settled(client.deleteIndex(aside));
      configured.delete(aside);
    },

    async lastIndexedAt(indexName) {
      await ensure(meiliIndexUid(indexName));
      const client = await clientOf();
      const response = await client.index<MeiliDocument>(meiliIndexUid(indexName)).search('', { sort: ['indexedAt:desc'], limit: 1 });
      const [last] = response.hits;
      return last === undefined ? undefined : new Date(last.indexedAt);
    },
  };
}
