/**
 * The search engine port: what the admin and storefront searches need from an engine, whichever it is
 * (docs/search.md). Documents are replaced whole by id; every operation may be repeated safely.
 */
export interface SearchDocument {
  /** Unique in its index. */
  readonly id: string;
  /** Matched first: a hit in the title ranks above a hit in the body. */
  readonly title: string;
  readonly body: string;
  /** Attributes a search narrows by exact value; an attribute may hold several (a product's channels). */
  readonly filters: Readonly<Record<string, readonly string[]>>;
  /** What a hit returns, as JSON. */
  readonly data: Readonly<Record<string, unknown>>;
}

export interface SearchQuery {
  /** Words to find, each also as a prefix ("jack" finds "jacket"); empty finds every document the filters let through. */
  readonly text: string;
  /** Each attribute must hold the value. */
  readonly filters?: Readonly<Record<string, string>>;
  readonly limit: number;
  readonly offset: number;
}

export interface SearchHit {
  readonly id: string;
  readonly data: Record<string, unknown>;
}

export interface SearchResult {
  readonly hits: readonly SearchHit[];
  /** Matches in all, across pages. */
  readonly total: number;
}

export interface SearchEngine {
  index(indexName: string, documents: readonly SearchDocument[]): Promise<void>;
  delete(indexName: string, ids: readonly string[]): Promise<void>;
  search(indexName: string, query: SearchQuery): Promise<SearchResult>;
  /**
   * Replaces the whole index with the documents of `batches`: documents not among them are gone when it
   * resolves; searches meanwhile still find the old ones.
   */
  rebuild(indexName: string, batches: AsyncIterable<readonly SearchDocument[]>): Promise<void>;
  /** When a document of the index was last written; undefined for an empty index. */
  lastIndexedAt(indexName: string): Promise<Date | undefined>;
}
