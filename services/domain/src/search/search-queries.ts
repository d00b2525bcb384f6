import type { OrderStatus, SearchEngine, SearchResult } from '@shop/platform';
import { DomainError, idString, optionalId } from '../kernel/index.ts';
import { ADMIN_INDEX, STOREFRONT_INDEX } from './search-indexes.ts';

export interface SearchPage {
  readonly text: string;
  readonly limit: number;
  readonly offset: number;
}

export interface AdminSearch extends SearchPage {
  readonly kind?: 'order' | 'customer' | 'product';
  readonly channelId?: bigint;
  /** Orders in this status only (other kinds have none). */
  readonly status?: OrderStatus;
}

export interface StorefrontSearch extends SearchPage {
  readonly channelId: bigint;
  /** Products of this category or any of its subcategories. */
  readonly categoryId?: bigint;
  readonly brandId?: bigint;
}

const MAX_TEXT = 200;
const MAX_LIMIT = 100;
// Deep pages cost the engine the rows before them; past this, narrow the search instead.
const MAX_OFFSET = 10_000;

function assertPage({ text, limit, offset }: SearchPage): void {
  if (text.length > MAX_TEXT)
    throw new DomainError('BAD_USER_INPUT', `search text may be at most ${MAX_TEXT} characters`, { field: 'text' });
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new DomainError('BAD_USER_INPUT', `limit must be 1 to ${MAX_LIMIT}`, { field: 'limit' });
  }
  if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) {
    throw new DomainError('BAD_USER_INPUT', `offset must be 0 to ${MAX_OFFSET}: narrow the search instead`, { field: 'offset' });
  }
}

/** Filters without the criteria left out. */
const present = (filters: Record<string, string | null | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(filters).filter((entry): entry is [string, string] => entry[1] != null));

/** Staff search over orders, customers and products; each hit's data carries its `kind`. */
export async function searchAdmin(engine: SearchEngine, search: AdminSearch): Promise<SearchResult> {
  assertPage(search);
  const filters = present({ kind: search.kind, channel: optionalId(search.channelId), status: search.status });
  return engine.search(ADMIN_INDEX, { text: search.text, filters, limit: search.limit, offset: search.offset });
}

/** Shopper search over the active products of one channel. */
export async function searchStorefront(engine: SearchEngine, search: StorefrontSearch): Promise<SearchResult> {
  assertPage(search);
  const filters = present({
    channel: idString(search.channelId),
    category: optionalId(search.categoryId),
    brand: optionalId(search.brandId),
  });
  return engine.search(STOREFRONT_INDEX, { text: search.text, filters, limit: search.limit, offset: search.offset });
}
