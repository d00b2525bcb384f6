import type { Tx } from '../context.ts';

/**
 * One bounded pass of CleanupExpiredCarts: deletes up to `limit` ACTIVE carts whose expiry
 * (cartLifetimeDays after their last change) passed by `asOf`, with their lines. Carts hold no stock
 * (an order's reservations are made at checkout and end with the order), so nothing is released
 * first. Carts another transaction is changing are skipped for the next pass; CONVERTED carts stay,
 * as their orders point to them.
 */
export async function deleteExpiredCarts(tx: Tx, options: { asOf: Date; limit: number }): Promise<{ deleted: number; more: boolean }> {
  const deleted = await tx.$executeRaw`
    DELETE FROM carts WHERE id IN (
      SELECT id FROM carts WHERE status = 'ACTIVE' AND expires_at <= ${options.asOf}
       ORDER BY expires_at LIMIT ${options.limit} FOR UPDATE SKIP LOCKED)`;
  return { deleted, more: deleted === options.limit };
}
