import type { Config, SearchEndpoint } from '../config/config.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { meilisearchSearchEngine } from './meilisearch/meilisearch-search-engine.ts';
import { postgresSearchEngine } from './postgres-search-engine.ts';
import type { SearchEngine } from './search-engine.ts';

/** The engine of each index: the admin and the storefront index may live in different engines. */
export interface SearchEngines {
  readonly admin: SearchEngine;
  readonly storefront: SearchEngine;
}

export type SearchConfig = Pick<Config, 'adminSearch' | 'storefrontSearch'>;

// One per endpoint and process: each remembers which indexes it has set up.
const meilisearchEngines = new Map<string, SearchEngine>();

function meilisearchAt({ url, apiKey }: SearchEndpoint): SearchEngine {
  const key = `${url} ${apiKey ?? ''}`;
  let engine = meilisearchEngines.get(key);
  if (engine === undefined) {
    // The client library is loaded only when an index is in Meilisearch, at its first use.
    engine = meilisearchSearchEngine(async () => {
      const { Meilisearch } = await import('meilisearch');
      return new Meilisearch({ host: url, ...(apiKey === undefined ? {} : { apiKey }) });
    });
    meilisearchEngines.set(key, engine);
  }
  return engine;
}

/**
 * Meilisearch for an index whose URL is set (ADMIN_SEARCH_URL, STOREFRONT_SEARCH_URL), PostgreSQL's full
 * text in `db` otherwise: given a transaction, PostgreSQL writes commit with it; Meilisearch's cannot.
 */
export function searchEnginesFor(config: SearchConfig, db: Prisma.TransactionClient): SearchEngines {
  const postgres = postgresSearchEngine(db);
  return {
    admin: config.adminSearch === undefined ? postgres : meilisearchAt(config.adminSearch),
    storefront: config.storefrontSearch === undefined ? postgres : meilisearchAt(config.storefrontSearch),
  };
}
