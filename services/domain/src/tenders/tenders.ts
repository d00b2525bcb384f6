import type { GatewayOperation, PaymentGateway, PaymentTender, TenderEventKind } from '@shop/platform';
import { type DomainDeps, DomainError, idString, type Money, moneyString, optionalId, sum, type Tx } from '../kernel/index.ts';
import { settled } from './gateway-answers.ts';
import { creditBackStoreCreditTender } from '../store-credit/index.ts';
import { toMinorUnits } from './minor-units.ts';
import { tenderMachine } from './tender-status.ts';

/**
 * A transaction that calls the gateway stays open while it waits for the answer (the adapter gives
 * up after 10 s), so it needs longer than Prisma's 5 s default.
 */
export const GATEWAY_TRANSACTION = { timeout: 30_000 } as const;

/** How long a card authorization holds: Stripe's 7 days for a customer-initiated payment, as the test gateway enforces. */
export const CARD_AUTHORIZATION_DAYS = 7;

/** The fault of a void the gateway refused for good: the tender stays AUTHORIZED for staff, and the sweep does not try it again. */
export const VOID_REFUSED = 'void_refused';

/**
 * Every money move's idempotency key, derived from ids that a retry of the same step sees again, so
 * the gateway replays the first answer instead of moving money twice (docs/money.md).
 */
export const tenderKeys = {
  /** The cart tender's: the cart converts once, and the shopper's retry sends the same checkout key. */
  authorize: (cartId: bigint, checkoutKey: string): string => `authorize:cart:${cartId}:${checkoutKey}`,
  /** The capture at fulfilment takes what is left of the authorization in one capture. */
  capture: (tenderId: bigint): string => `capture:${tenderId}`,
  void: (tenderId: bigint): string => `void:${tenderId}`,
  /** The refund of what was captured when the order is cancelled. */
  cancelRefund: (tenderId: bigint): string => `refund:cancel:${tenderId}`,
};

export function gatewayOf(deps: DomainDeps): PaymentGateway {
  if (deps.gateway === undefined)
    throw new DomainError('BAD_USER_INPUT', 'card payments are not set up on this shop: no payment gateway is configured', {
      field: 'card',
    });
  return deps.gateway;
}

/** The gateway's record of a movement: its operation, or what stands for one (an authorization voided outside the shop). */
type MovementRecord = Pick<GatewayOperation, 'id' | 'idempotencyKey' | 'createdAt'>;

/** One movement: appended to the tender's event log and emitted as shop.payments.money_moved.v1, in the caller's transaction. */
export async function recordMovement(
  tx: Tx,
  deps: DomainDeps,
  tender: PaymentTender,
  kind: TenderEventKind,
  amount: Money,
  operation: MovementRecord,
): Promise<void> {
  const occurredAt = new Date(operation.createdAt);
  await tx.tenderEvent.create({
    data: { tenderId: tender.id, kind, amount, idempotencyKey: operation.idempotencyKey, gatewayOperationId: operation.id, occurredAt },
  });
  await deps.emit(tx, 'shop.payments.money_moved.v1', {
    tender_id: idString(tender.id),
    order_id: optionalId(tender.orderId),
    tender_kind: tender.kind,
    movement: kind,
    amount: moneyString(amount, tender.currency),
    currency: tender.currency,
    gateway_operation_id: operation.id,
    occurred_at: occurredAt.toISOString(),
  });
}

export async function lockedTender(tx: Tx, tenderId: bigint): Promise<PaymentTender> {
  await tx.$executeRaw`SELECT 1 FROM payment_tenders WHERE id = ${tenderId} FOR UPDATE`;
  const tender = await tx.paymentTender.findUnique({ where: { id: tenderId } });
  if (tender === null) throw new DomainError('NOT_FOUND', `tender ${tenderId} does not exist`, { field: 'tenderId' });
  return tender;
}

/**
 * Captures what is left of an AUTHORIZED tender, under its row lock. Already captured (or refunded
 * since): nothing happens, so a retried capture captures once; the gateway's key covers a capture
 * whose answer was lost before this transaction committed.
 */
export async function captureTender(tx: Tx, deps: DomainDeps, tenderId: bigint): Promise<PaymentTender> {
  const tender = await lockedTender(tx, tenderId);
  if (tender.status === 'CAPTURED' || tender.status === 'REFUNDED') return tender;
  if (tender.status === 'VOIDED')
    throw new DomainError('CONFLICT', `tender ${tenderId} was voided: it cannot be captured`, { field: 'tenderId' });
  const amount = tender.authorizedAmount.sub(tender.capturedAmount).sub(tender.voidedAmount);
  const operation = settled(
    await gatewayOf(deps).capture({
      idempotencyKey: tenderKeys.capture(tender.id),
      authorizationId: tender.gatewayReference,
      amount: toMinorUnits(amount, tender.currency),
    }),
    `capture tender ${tenderId}`,
  );
  const captured = await tx.paymentTender.update({
    where: { id: tender.id },
    data: { status: tenderMachine.next(tender.id, tender.status, 'capture'), capturedAmount: tender.capturedAmount.add(amount) },
  });
  await recordMovement(tx, deps, captured, 'CAPTURED', amount, operation);
  return captured;
}

/** Captures every AUTHORIZED tender of the order (fulfilment); answers all its tenders afterwards. */
export async function captureOrderTenders(tx: Tx, deps: DomainDeps, orderId: bigint): Promise<PaymentTender[]> {
  const open = await tx.paymentTender.findMany({ where: { orderId, status: 'AUTHORIZED' }, orderBy: { id: 'asc' }, select: { id: true } });
  for (const { id } of open) await captureTender(tx, deps, id);
  return tendersOfOrder(tx, orderId);
}

/** What the capture at fulfilment took, against what the order costs: the workflow records a fault when they differ. */
export interface FulfilmentCapture {
  /** 0: the order is paid some other way (marked paid by staff), and nothing was captured. */
  readonly tenders: number;
  readonly captured: string;
  readonly orderTotal: string;
  /** Why the gateway refused a capture for good (an expired authorization): retrying cannot help, staff must act. */
  readonly refused: string | null;
  /**
   * The order was paid at checkout (it has tenders), what they captured falls short of its total, and
   * no card tender was there to capture the rest: none is AUTHORIZED and none captured anything (the
   * card's authorization was voided, or never made). The workflow records capture_without_authorization.
   */
  readonly withoutAuthorization: boolean;
}

/**
 * Captures the order's tenders (captureOrderTenders) and sums what its tenders have captured. A
 * gateway that did not answer throws (UNAVAILABLE: the caller retries); a refusal for good is answered.
 */
export async function captureAtFulfilment(tx: Tx, deps: DomainDeps, orderId: bigint): Promise<FulfilmentCapture> {
  let refused: string | null = null;
  let tenders: PaymentTender[];
  try {
    tenders = await captureOrderTenders(tx, deps, orderId);
  } catch (error) {
    if (!(error instanceof DomainError) || error.code === 'UNAVAILABLE') throw error;
    refused = error.message;
    tenders = await tendersOfOrder(tx, orderId);
  }
  const order = await tx.order.findUnique({ where: { id: orderId }, select: { total: true, currency: true } });
  if (order === null) throw new DomainError('NOT_FOUND', `order ${orderId} does not exist`, { field: 'orderId' });
  const captured = sum(tenders.map((tender) => tender.capturedAmount));
  const cardToCapture = tenders.some((tender) => tender.kind === 'CARD' && (tender.status === 'AUTHORIZED' || tender.capturedAmount.gt(0)));
  const withoutAuthorization = refused === null && tenders.length > 0 && captured.lt(order.total) && !cardToCapture;
  return {
    tenders: tenders.length,
    captured: moneyString(captured, order.currency),
    orderTotal: moneyString(order.total, order.currency),
    refused,
    withoutAuthorization,
  };
}

/**
 * Voids the tender's authorization under `void:{tenderId}`. An authorization the gateway says is
 * voided already (from its dashboard, under another key) counts as done: nothing is left to release.
 * Its movement then carries the authorization's id and the time the shop learnt of it, as the
 * gateway answered no operation.
 */
async function voidAtGateway(deps: DomainDeps, gateway: PaymentGateway, tender: PaymentTender): Promise<MovementRecord> {
  const idempotencyKey = tenderKeys.void(tender.id);
  const answer = await gateway.void({ idempotencyKey, authorizationId: tender.gatewayReference });
  if (answer.status === 'error' && answer.code === 'authorization_voided')
    return { id: tender.gatewayReference, idempotencyKey, createdAt: deps.now().toISOString() };
  return settled(answer, `void tender ${tender.id}`);
}

/**
 * Gives back what a tender holds when its order is cancelled: an AUTHORIZED tender is voided, a
 * CAPTURED one refunded what is left of its capture (store credit and gift cards: credited back to
 * their account, without the gateway). Voided or refunded already: nothing happens.
 */
export async function releaseTender(tx: Tx, deps: DomainDeps, tenderId: bigint): Promise<void> {
  const tender = await lockedTender(tx, tenderId);
  if (tender.kind !== 'CARD') {
    if (tender.status !== 'CAPTURED') return;
    await creditBackStoreCreditTender(tx, deps, tender);
    await tx.paymentTender.update({
      where: { id: tender.id },
      data: { status: tenderMachine.next(tender.id, tender.status, 'refund'), refundedAmount: tender.capturedAmount },
    });
    return;
  }
  const gateway = gatewayOf(deps);
  if (tender.status === 'AUTHORIZED') {
    const operation = await voidAtGateway(deps, gateway, tender);
    const amount = tender.authorizedAmount.sub(tender.capturedAmount);
    const voided = await tx.paymentTender.update({
      where: { id: tender.id },
      data: { status: tenderMachine.next(tender.id, tender.status, 'void'), voidedAmount: amount },
    });
    await recordMovement(tx, deps, voided, 'VOIDED', amount, operation);
  } else if (tender.status === 'CAPTURED') {
    const amount = tender.capturedAmount.sub(tender.refundedAmount);
    const operation = settled(
      await gateway.refund({
        idempotencyKey: tenderKeys.cancelRefund(tender.id),
        authorizationId: tender.gatewayReference,
        amount: toMinorUnits(amount, tender.currency),
      }),
      `refund tender ${tenderId}`,
    );
    const refunded = await tx.paymentTender.update({
      where: { id: tender.id },
      data: { status: tenderMachine.next(tender.id, tender.status, 'refund'), refundedAmount: tender.capturedAmount },
    });
    await recordMovement(tx, deps, refunded, 'REFUNDED', amount, operation);
  }
}

/**
 * What a cancellation does with the order's card tenders: `now` voids or refunds them at the gateway
 * in its transaction (one order per transaction, with GATEWAY_TRANSACTION); `by_sweep` leaves them
 * for the sweep of expiring authorizations, which voids a cancelled order's authorization on its next
 * run, so that a cancellation by an expiry never waits for the gateway.
 */
export type CardRelease = 'now' | 'by_sweep';

/**
 * Releases every tender of a cancelled order, in the cancellation's transaction: store credit and gift
 * cards are credited back always, card tenders as `cards` says.
 */
export async function releaseOrderTenders(tx: Tx, deps: DomainDeps, orderId: bigint, cards: CardRelease): Promise<void> {
  const tenders = await tx.paymentTender.findMany({
    where: { orderId, status: { in: ['AUTHORIZED', 'CAPTURED'] }, ...(cards === 'by_sweep' ? { kind: { not: 'CARD' } } : {}) },
    orderBy: { id: 'asc' },
    select: { id: true },
  });
  for (const { id } of tenders) await releaseTender(tx, deps, id);
}

export function tendersOfOrder(db: Tx, orderId: bigint): Promise<PaymentTender[]> {
  return db.paymentTender.findMany({ where: { orderId }, orderBy: { id: 'asc' } });
}

/** The tenders of several orders at once (GraphQL's loader), each order's in creation order. */
export async function tendersOfOrders(db: Tx, orderIds: readonly bigint[]): Promise<Map<bigint, PaymentTender[]>> {
  const tenders = await db.paymentTender.findMany({ where: { orderId: { in: [...orderIds] } }, orderBy: { id: 'asc' } });
  const byOrder = new Map<bigint, PaymentTender[]>(orderIds.map((id) => [id, []]));
  for (const tender of tenders) if (tender.orderId !== null) byOrder.get(tender.orderId)?.push(tender);
  return byOrder;
}
