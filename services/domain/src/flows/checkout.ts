import type { RunTransaction } from '@shop/platform';
import type { DomainDeps } from '../kernel/context.ts';
import { DomainError } from '../kernel/domain-error.ts';
import { authorizeCartTender, staleCartTenderOf, voidCartTender } from '../tenders/cart-tenders.ts';
import { cardCheckoutStep, placeOrder, type PlaceOrderInput } from './place-order.ts';
import type { OrderWithLines } from '../orders/order-events.ts';

/**
 * What the placeOrder mutation runs. Without a card: placeOrder in one transaction. With a card, in
 * steps, so that no lock is held while the gateway answers:
 *
 * 1. a short transaction reads what to authorize (or finds the order an earlier request placed);
 * 2. the card is authorized for the cart and recorded as a cart tender (authorizeCartTender);
 * 3. the order's transaction (placeOrder) takes the tender as its payment.
 *
 * Each step is keyed by the checkout's idempotency key, so the same request sent again after any
 * failure carries on where the first stopped: it answers the placed order, or places it with the
 * tender already authorized, or has the gateway replay the authorization. A failed order transaction
 * leaves the tender for that retry, and GcExpiredCartTendersWorkflow voids it when nobody retries. A
 * tender refused as stale (the cart changed after the authorization) is voided at once.
 */
export async function checkout(transaction: RunTransaction, deps: DomainDeps, input: PlaceOrderInput): Promise<OrderWithLines> {
  const { card } = input;
  if (card === undefined) return transaction((tx) => placeOrder(tx, deps, input));
  const step = await transaction((tx) => cardCheckoutStep(tx, deps, { ...input, card }));
  if ('placed' in step) return step.placed;
  if (step.authorize !== null) await authorizeCartTender(transaction, deps, step.authorize);
  try {
    return await transaction((tx) => placeOrder(tx, deps, input));
  } catch (error) {
    const stale = staleCartTenderOf(error);
    if (stale !== null) await voidStaleTender(transaction, deps, stale);
    throw error;
  }
}

/** The shopper's refusal is the stale authorization; a void the gateway does not take now is left to GcExpiredCartTendersWorkflow. */
async function voidStaleTender(transaction: RunTransaction, deps: DomainDeps, tenderId: bigint): Promise<void> {
  try {
    await voidCartTender(transaction, deps, tenderId);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
  }
}
