/**
 * A unique constraint refused the row (Prisma P2002): a concurrent insert won the race that the
 * pre-check lost. The transaction is aborted either way; the caller turns this into CONFLICT.
 */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'P2002';
}
