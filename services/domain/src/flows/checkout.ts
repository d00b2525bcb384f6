import type { RunTransaction } from '@shop/platform';
import { type DomainDeps, DomainError } from '../kernel/index.ts';
import { authorizeCartTender, staleCartTenderOf, voidCartTender } from '../tenders/index.ts';
import { cardCheckoutStep, placeOrder, type PlaceOrderInput } from './place-order.ts';
import { runFlow } from './steps.ts';
import type { OrderWithLines } from '../orders/index.ts';

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
 *
 * Guarantees: one order per idempotency key, the card authorized at most once for it, and no
 * authorization left behind that neither an order nor the idle-tender sweep will settle.
 */
export async function checkout(transaction: RunTransaction, deps: DomainDeps, input: PlaceOrderInput): Promise<OrderWithLines> {
  const { card } = input;
  if (card === undefined) return transaction((tx) => placeOrder(tx, deps, input));
  return runFlow(async ({ step }) => {
    const read = await step('read what to authorize', () => transaction((tx) => cardCheckoutStep(tx, deps, { ...input, card })));
    if ('placed' in read) return read.placed;
    const { authorize } = read;
    // A step even when an earlier request authorized already: the compensation voids the cart's tender, whichever request made it.
    await step(
      'authorize the card for the cart',
      async () => (authorize === null ? null : authorizeCartTender(transaction, deps, authorize)),
      voidIfStale(transaction, deps),
    );
    return step('place the order with its tenders', () => transaction((tx) => placeOrder(tx, deps, input)));
  });
}

/**
 * The authorization's compensation: only the shopper's refusal, the stale authorization (the cart
 * changed since), voids it at once; after any other failure it stays for the retry, and
 * GcExpiredCartTendersWorkflow voids it when nobody retries. A void the gateway does not take now is
 * left to that workflow too.
 */
const voidIfStale =
  (transaction: RunTransaction, deps: DomainDeps) =>
  async (_tender: unknown, failure: unknown): Promise<void> => {
    const stale = staleCartTenderOf(failure);
    if (stale === null) return;
    try {
      await voidCartTender(transaction, deps, stale);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  };
