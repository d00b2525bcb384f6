import type { Prisma } from '../generated/prisma/client.ts';
import { postgresSearchEngine } from './postgres-search-engine.ts';
import type { SearchEngine } from './search-engine.ts';

/** The engine of each index: the admin and the storefront index may live in different engines. */
export interface SearchEngines {
  readonly admin: SearchEngine;
  readonly storefront: SearchEngine;
}

/** Both indexes in PostgreSQL's full text, in the shop's database. */
export function postgresSearchEngines(db: Prisma.TransactionClient): SearchEngines {
  const engine = postgresSearchEngine(db);
  return { admin: engine, storefront: engine };
}
