import type { Settings } from 'meilisearch';
import type { SearchDocument, SearchHit } from '../search-engine.ts';

/** A document as Meilisearch stores it. `key` is its primary key: Meilisearch allows only [A-Za-z0-9_-] there, ids like `order:12` do not fit. */
export interface MeiliDocument {
  readonly key: string;
  readonly id: string;
  readonly title: string;
  readonly body: string;
  readonly filters: Readonly<Record<string, readonly string[]>>;
  readonly data: Readonly<Record<string, unknown>>;
  /** Unix milliseconds: sorted on to answer lastIndexedAt. */
  readonly indexedAt: number;
}

export const PRIMARY_KEY = 'key';

/** The Meilisearch index of a port index (`admin`, `storefront`). */
export const meiliIndexUid = (indexName: string): string => `shop_${indexName}`;

/** Ranked pages stop here: the port's deepest page (offset 10,000) plus the largest page (100). */
export const MAX_TOTAL_HITS = 10_100;

/** The primary key of a document id: base64url, reversible and within Meilisearch's alphabet. */
export const meiliKey = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');

export function toMeiliDocument(document: SearchDocument, indexedAt: Date): MeiliDocument {
  return {
    key: meiliKey(document.id),
    id: document.id,
    title: document.title,
    body: document.body,
    filters: document.filters,
    data: document.data,
    indexedAt: indexedAt.getTime(),
  };
}

export function toSearchHit(document: Pick<MeiliDocument, 'id' | 'data'>): SearchHit {
  return { id: document.id, data: { ...document.data } };
}

/**
 * The settings every index gets: the title ranks above the body (the attribute rule follows this
 * order), filters are exact values under `filters.<name>` (a parent field makes its subfields
 * filterable), and totals are exact as deep as a page may go.
 */
export function meiliIndexSettings(): Settings {
  return {
    searchableAttributes: ['title', 'body'],
    filterableAttributes: ['filters'],
    sortableAttributes: ['indexedAt'],
    displayedAttributes: ['id', 'data', 'indexedAt'],
    pagination: { maxTotalHits: MAX_TOTAL_HITS },
  };
}

const quoted = (value: string): string => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** The port's filters (each attribute must hold the value) as Meilisearch filter expressions, all of which must hold. */
export function meiliFilter(filters: Readonly<Record<string, string>> | undefined): string[] {
  return Object.entries(filters ?? {}).map(([name, value]) => {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`search filter names are lower-case words; got ${JSON.stringify(name)}`);
    return `filters.${name} = ${quoted(value)}`;
  });
}
