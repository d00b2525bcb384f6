import type { PaymentTender, RunTransaction } from '@shop/platform';
import { type DomainDeps, DomainError, type Money, moneyString, type Tx } from '../kernel/index.ts';
import { workflowSettings } from '../settings/index.ts';
import { settled } from './gateway-answers.ts';
import { fromMinorUnits, toMinorUnits } from './minor-units.ts';
import { CARD_AUTHORIZATION_DAYS, gatewayOf, GATEWAY_TRANSACTION, recordMovement, releaseTender, tenderKeys } from './tenders.ts';

/**
 * Cart tenders: checkout authorizes the card for the cart before the order's transaction, in a step
 * of its own, and the order's transaction takes the tender (docs/money.md). A tender no order took
 * is voided by GcExpiredCartTendersWorkflow once its hold runs out (cartTenderIdleMinutes).
 */

/** The `reason` in the details of the refusal of a tender authorized for the cart as it was before a change. */
export const STALE_CARD_AUTHORIZATION = 'stale_card_authorization';

/** A card to authorize for a cart as checkout quoted it. */
export interface CartCard {
  readonly cartId: bigint;
  /** The placeOrder request's idempotency key. */
  readonly checkoutKey: string;
  readonly cardToken: string;
  /** What is left to pay by card: the total less what a gift card and store credit cover. */
  readonly amount: Money;
  readonly currency: string;
  /** The cart's content and total as quoted (CartQuote.digest). */
  readonly digest: string;
}

/**
 * Authorizes `amount` on the card under `authorize:cart:{cartId}:{checkoutKey}` and records it as a
 * cart tender (no order yet) whose hold runs out cartTenderIdleMinutes from now. The gateway call is
 * made outside any transaction, so no lock and no connection waits for it; the tender is then written
 * in a short transaction of its own. A failure between the two leaves the authorization at the gateway
 * only, and the shopper's retry (same key) has it replayed and recorded. Declined: a DomainError and
 * nothing written.
 */
export async function authorizeCartTender(transaction: RunTransaction, deps: DomainDeps, card: CartCard): Promise<PaymentTender> {
  const idempotencyKey = tenderKeys.authorize(card.cartId, card.checkoutKey);
  const answer = await gatewayOf(deps).authorize({
    idempotencyKey,
    amount: toMinorUnits(card.amount, card.currency),
    cardToken: card.cardToken,
  });
  const operation = settled(answer, 'authorize the card');
  const authorizedAt = new Date(operation.createdAt);
  return transaction(async (tx) => {
    const { cartTenderIdleMinutes } = await workflowSettings(tx);
    // A concurrent request with the same key got the same (replayed) authorization: one of them writes it.
    const { count } = await tx.paymentTender.createMany({
      data: {
        cartId: card.cartId,
        kind: 'CARD',
        status: 'AUTHORIZED',
        currency: card.currency,
        authorizedAmount: fromMinorUnits(operation.amount),
        gatewayReference: operation.authorizationId,
        idempotencyKey,
        authorizationExpiresAt: new Date(authorizedAt.getTime() + CARD_AUTHORIZATION_DAYS * 24 * 60 * 60 * 1000),
        holdExpiresAt: new Date(deps.now().getTime() + cartTenderIdleMinutes * 60_000),
        cartDigest: card.digest,
      },
      skipDuplicates: true,
    });
    const tender = await tx.paymentTender.findUniqueOrThrow({ where: { idempotencyKey } });
    if (count === 1) await recordMovement(tx, deps, tender, 'AUTHORIZED', tender.authorizedAmount, operation);
    return tender;
  });
}

/** Whether this checkout already has its cart tender (authorized by an earlier attempt with the same key). */
export async function hasCartTender(tx: Tx, cartId: bigint, checkoutKey: string): Promise<boolean> {
  return (await tx.paymentTender.count({ where: { idempotencyKey: tenderKeys.authorize(cartId, checkoutKey) } })) > 0;
}

const staleAuthorization = (tender: PaymentTender, why: string): DomainError =>
  new DomainError(
    'CONFLICT',
    `the cart changed after the card was authorized for it (${why}): that authorization is voided; send the checkout again with a new idempotencyKey`,
    { field: 'idempotencyKey', reason: STALE_CARD_AUTHORIZATION, tenderId: tender.id.toString() },
  );

/**
 * The checkout's cart tender, locked for the order's transaction; null when none was authorized.
 * Refused (CONFLICT): a tender voided since (its hold ran out, or the cart changed before), and a
 * tender authorized for the cart with another content or total than `digest` (its refusal's details
 * say STALE_CARD_AUTHORIZATION: the caller voids it once this transaction has rolled back).
 */
export async function lockedCartTender(tx: Tx, cartId: bigint, checkoutKey: string, digest: string): Promise<PaymentTender | null> {
  const idempotencyKey = tenderKeys.authorize(cartId, checkoutKey);
  await tx.$executeRaw`SELECT 1 FROM payment_tenders WHERE idempotency_key = ${idempotencyKey} FOR UPDATE`;
  const tender = await tx.paymentTender.findUnique({ where: { idempotencyKey } });
  if (tender === null) return null;
  if (tender.status !== 'AUTHORIZED' || tender.orderId !== null) {
    throw new DomainError(
      'CONFLICT',
      "this checkout's card authorization was voided (the cart changed after it, or it waited for its order longer than the cart tender hold): send the checkout again with a new idempotencyKey",
      { field: 'idempotencyKey', tenderId: tender.id.toString() },
    );
  }
  if (tender.cartDigest !== digest)
    throw staleAuthorization(tender, 'its lines, prices or total are not those the card was authorized for');
  return tender;
}

/**
 * The order's transaction takes the cart tender as the order's payment of `amount` (what is left
 * after the gift card and store credit). A tender of another amount is stale (the balances moved
 * since the authorization); no tender while something is left to pay asks for the same request again,
 * which authorizes the card first.
 */
export async function payWithCartTender(
  tx: Tx,
  tender: PaymentTender | null,
  order: { id: bigint; currency: string },
  amount: Money,
): Promise<void> {
  if (tender === null) {
    if (amount.lte(0)) return;
    throw new DomainError(
      'CONFLICT',
      `${moneyString(amount, order.currency)} ${order.currency} is left to pay by card and the card is not authorized for it yet: send the same request again`,
      {
        field: 'card',
      },
    );
  }
  if (!tender.authorizedAmount.eq(amount)) {
    throw staleAuthorization(
      tender,
      `${moneyString(tender.authorizedAmount, order.currency)} ${order.currency} was authorized, ${moneyString(amount, order.currency)} is left to pay by card now`,
    );
  }
  await tx.paymentTender.update({ where: { id: tender.id }, data: { orderId: order.id } });
}

/** Whether a checkout was refused for a stale cart tender, whose id it names. */
export function staleCartTenderOf(error: unknown): bigint | null {
  if (!(error instanceof DomainError) || error.details.reason !== STALE_CARD_AUTHORIZATION) return null;
  return typeof error.details.tenderId === 'string' ? BigInt(error.details.tenderId) : null;
}

/**
 * Voids a cart tender no order took, under `void:{tenderId}` (releaseTender), in a transaction of its
 * own that waits for the gateway. False when an order took it or it was voided meanwhile.
 */
export function voidCartTender(transaction: RunTransaction, deps: DomainDeps, tenderId: bigint): Promise<boolean> {
  return transaction(async (tx) => {
    const [open] = await tx.$queryRaw<{ id: bigint }[]>`
      SELECT id FROM payment_tenders WHERE id = ${tenderId} AND order_id IS NULL AND status = 'AUTHORIZED' FOR UPDATE`;
    if (open === undefined) return false;
    await releaseTender(tx, deps, tenderId);
    return true;
  }, GATEWAY_TRANSACTION);
}
