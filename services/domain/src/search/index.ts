export { reindexSearch } from './reindex.ts';
export { ADMIN_INDEX, STOREFRONT_INDEX } from './search-indexes.ts';
export { type AdminSearch, searchAdmin, type SearchPage, searchStorefront } from './search-queries.ts';
export { searchSubscription } from './search-subscription.ts';
