/** The searchable text of a document from its fields, leaving out the empty ones. */
export const searchText = (parts: readonly (string | null | undefined)[]): string =>
  parts.filter((part) => part != null && part !== '').join(' ');
