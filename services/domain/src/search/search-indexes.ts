/** Staff search over orders, customers and products, each document tagged with its `kind`. */
export const ADMIN_INDEX = 'admin';
/** Shopper search over the active products of each channel. */
export const STOREFRONT_INDEX = 'storefront';

export const SEARCH_INDEXES = [ADMIN_INDEX, STOREFRONT_INDEX] as const;
export type SearchIndexName = (typeof SEARCH_INDEXES)[number];

/** The id of an admin document: kinds share the index, so the id says which table the row is from. */
export const adminDocumentId = (kind: 'order' | 'customer' | 'product', id: bigint): string => `${kind}:${id}`;
