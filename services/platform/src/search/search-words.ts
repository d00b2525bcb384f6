/**
 * Text as the PostgreSQL engine indexes and queries it: lower-case runs of letters and digits. Splitting
 * here, on both sides, makes "SO-2026-009001", "jane@example.com" and "ABC-123" findable by their parts,
 * which PostgreSQL's own parser keeps whole (emails, hyphenated words).
 */
export function searchWords(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A tsquery matching every word of `text`, each as a prefix; '' for text without words. */
export function prefixQuery(text: string): string {
  return searchWords(text)
    .map((word) => `${word}:*`)
    .join(' & ');
}
