import type { Tx } from '../kernel/index.ts';

/**
 * One bounded pass of CleanupExpiredCarts: deletes up to `limit` ACTIVE carts whose expiry
 * (cartLifetimeDays after their last change) passed by `asOf`, with their lines. Carts hold no stock
 * (an order's reservations are made at checkout and end with the order), so nothing is released
 * first. A cart with a live tender (a card authorized for it and not voided yet) stays until
 * GcExpiredCartTendersWorkflow has voided it. Carts another transaction is changing are skipped for
 * the next pass; CONVERTED carts stay, as their orders point to them.
 */
export async function deleteExpiredCarts(tx: Tx, options: { asOf: Date; limit: number }): Promise<{ deleted: number; more: boolean }> {
  const deleted = await tx.$executeRaw`
    DELETE FROM carts WHERE id IN (
      SELECT c.id FROM carts c
       WHERE c.status = 'ACTIVE' AND c.expires_at <= ${options.asOf}
         AND NOT EXISTS (SELECT 1 FROM payment_tenders t WHERE t.cart_id = c.id AND t.status IN ('AUTHORIZED', 'CAPTURED'))
       ORDER BY c.expires_at LIMIT ${options.limit} FOR UPDATE OF c SKIP LOCKED)`;
  return { deleted, more: deleted === options.limit };
}
