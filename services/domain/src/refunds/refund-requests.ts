import type { OrderStatus, PaymentTender, Prisma, RefundDestination, RefundRequestStatus, RefundStatus, TenderKind } from '@shop/platform';
import {
  type DomainDeps,
  DomainError,
  idString,
  LIMITS,
  money,
  type Money,
  moneyString,
  notFound,
  optionalId,
  requirePositiveAmount,
  requireText,
  sum,
  type Tx,
} from '../kernel/index.ts';
import { goodsHaveLeft } from '../orders/index.ts';
import { refundMachine, refundRequestMachine } from './refund-status.ts';

/**
 * Refund requests: an amount of an order to give back, split across the order's tenders into one
 * refund each, under the tenders' row locks so that requests together never take more than was
 * captured (docs/money.md#refunds). RefundExecutionWorkflow then runs the refunds (refund-execution.ts).
 */

export type RefundSource = { kind: 'STAFF'; staffUserId: bigint } | { kind: 'RMA'; rmaId: bigint };

export interface RequestRefundInput {
  readonly orderId: bigint;
  /** A decimal string in the order's currency, e.g. "19.90". */
  readonly amount: string;
  readonly reason: string;
  /** The caller's key: the same request sent again answers the first. */
  readonly idempotencyKey: string;
  readonly source: RefundSource;
  /** Where every part goes: back to each tender (the default), or all to the customer's store credit (a return credited in advance). */
  readonly destination?: RefundDestination;
}

export interface RefundView {
  readonly id: string;
  readonly tenderId: string;
  readonly tenderKind: TenderKind;
  readonly amount: string;
  readonly destination: RefundDestination;
  readonly status: RefundStatus;
  readonly attempt: number;
  readonly gatewayRefundId: string | null;
  readonly settlesAt: Date | null;
  readonly lastError: string | null;
  readonly settledAt: Date | null;
}

export interface RefundRequestView {
  readonly id: string;
  readonly orderId: string;
  readonly status: RefundRequestStatus;
  readonly amount: string;
  readonly currency: string;
  readonly reason: string;
  readonly source: 'STAFF' | 'RMA';
  readonly staffUserId: string | null;
  readonly rmaId: string | null;
  readonly createdAt: Date;
  /** One per tender refunded, in the order of the split; a refund sent to store credit instead follows the one it replaces. */
  readonly refunds: readonly RefundView[];
}

/** Refunds that hold their amount against the tender's capture until they settle, or until staff move a failed one elsewhere. */
const UNSETTLED_REFUND: readonly RefundStatus[] = ['REQUESTED', 'PENDING', 'FAILED'];

/** The rule of the split: gift cards and store credit first (the money stays in the shop), then cards; oldest tender first within each. */
const SPLIT_ORDER: Readonly<Record<TenderKind, number>> = { GIFT_CARD: 0, STORE_CREDIT: 0, CARD: 1 };

const requestWithRefunds = {
  refunds: { include: { tender: { select: { kind: true } } }, orderBy: { id: 'asc' } },
} as const satisfies Prisma.RefundRequestInclude;
type RequestWithRefunds = Prisma.RefundRequestGetPayload<{ include: typeof requestWithRefunds }>;

function viewOf(request: RequestWithRefunds): RefundRequestView {
  return {
    id: idString(request.id),
    orderId: idString(request.orderId),
    status: request.status,
    amount: moneyString(request.amount, request.currency),
    currency: request.currency,
    reason: request.reason,
    source: request.source,
    staffUserId: optionalId(request.staffUserId),
    rmaId: optionalId(request.rmaId),
    createdAt: request.createdAt,
    refunds: request.refunds.map((refund) => ({
      id: idString(refund.id),
      tenderId: idString(refund.tenderId),
      tenderKind: refund.tender.kind,
      amount: moneyString(refund.amount, request.currency),
      destination: refund.destination,
      status: refund.status,
      attempt: refund.attempt,
      gatewayRefundId: refund.gatewayRefundId,
      settlesAt: refund.settlesAt,
      lastError: refund.lastError,
      settledAt: refund.settledAt,
    })),
  };
}

export async function refundRequestView(db: Tx, requestId: bigint): Promise<RefundRequestView> {
  const request = await db.refundRequest.findUnique({ where: { id: requestId }, include: requestWithRefunds });
  if (request === null) throw notFound('refund request', requestId, 'refundRequestId');
  return viewOf(request);
}

/** The refund requests of several orders at once (GraphQL's loader), each order's oldest first. */
export async function refundRequestsOfOrders(db: Tx, orderIds: readonly bigint[]): Promise<Map<bigint, RefundRequestView[]>> {
  const requests = await db.refundRequest.findMany({
    where: { orderId: { in: [...orderIds] } },
    include: requestWithRefunds,
    orderBy: { id: 'asc' },
  });
  const byOrder = new Map<bigint, RefundRequestView[]>(orderIds.map((id) => [id, []]));
  for (const request of requests) byOrder.get(request.orderId)?.push(viewOf(request));
  return byOrder;
}

/** What a tender can still give back: its capture, less what was refunded and what refunds under way hold. */
async function refundableOfTenders(tx: Tx, tenders: readonly PaymentTender[]): Promise<Map<bigint, Money>> {
  const held = await tx.refund.groupBy({
    by: ['tenderId'],
    where: { tenderId: { in: tenders.map((tender) => tender.id) }, status: { in: [...UNSETTLED_REFUND] } },
    _sum: { amount: true },
  });
  const heldBy = new Map(held.map((row) => [row.tenderId, row._sum.amount ?? money(0)]));
  return new Map(
    tenders.map((tender) => [tender.id, tender.capturedAmount.sub(tender.refundedAmount).sub(heldBy.get(tender.id) ?? money(0))]),
  );
}

/** Locks the order's captured tenders in id order (every refund path locks a tender before its refunds) and answers them in the split's order. */
async function lockedCapturedTenders(tx: Tx, orderId: bigint): Promise<PaymentTender[]> {
  await tx.$executeRaw`SELECT 1 FROM payment_tenders WHERE order_id = ${orderId} AND status = 'CAPTURED' ORDER BY id FOR UPDATE`;
  const tenders = await tx.paymentTender.findMany({ where: { orderId, status: 'CAPTURED' }, orderBy: { id: 'asc' } });
  return tenders.sort((a, b) => SPLIT_ORDER[a.kind] - SPLIT_ORDER[b.kind] || Number(a.id - b.id));
}

function sameSource(request: { source: string; staffUserId: bigint | null; rmaId: bigint | null }, source: RefundSource): boolean {
  return source.kind === 'STAFF'
    ? request.source === 'STAFF' && request.staffUserId === source.staffUserId
    : request.source === 'RMA' && request.rmaId === source.rmaId;
}

/** The request already made under this key: answered when it is the same request, CONFLICT when the key was used for another. */
async function replayedRequest(tx: Tx, input: RequestRefundInput, amount: Money, reason: string): Promise<RefundRequestView | null> {
  const earlier = await tx.refundRequest.findUnique({ where: { idempotencyKey: input.idempotencyKey }, include: requestWithRefunds });
  if (earlier === null) return null;
  if (earlier.orderId !== input.orderId || !earlier.amount.eq(amount) || earlier.reason !== reason || !sameSource(earlier, input.source)) {
    throw new DomainError(
      'CONFLICT',
      `the idempotency key ${JSON.stringify(input.idempotencyKey)} was already used for another refund request (${earlier.id})`,
      {
        field: 'idempotencyKey',
      },
    );
  }
  return viewOf(earlier);
}

/**
 * Records a refund request and its split across the order's tenders, and emits payments.refund_requested
 * (its RefundExecutionWorkflow starts from it). Nothing moves money here. Under the order's and its
 * tenders' row locks, refunds not settled yet count against each tender's capture, so concurrent
 * requests together never ask more than was captured. The same key with the same request answers the
 * first request; with another, CONFLICT; more than is refundable, BAD_USER_INPUT naming what is.
 */
export async function requestRefund(tx: Tx, deps: DomainDeps, input: RequestRefundInput): Promise<RefundRequestView> {
  const reason = requireText('reason', input.reason, LIMITS.refundReason);
  const idempotencyKey = requireText('idempotencyKey', input.idempotencyKey, LIMITS.idempotencyKey);
  const [order] = await tx.$queryRaw<
    { number: string; status: OrderStatus; currency: string }[]
  >`SELECT number, status, currency FROM orders WHERE id = ${input.orderId} FOR UPDATE`;
  if (order === undefined) throw notFound('order', input.orderId, 'orderId');
  const amount = requirePositiveAmount(input.amount, order.currency);
  const replayed = await replayedRequest(tx, { ...input, idempotencyKey }, amount, reason);
  if (replayed !== null) return replayed;
  // Before fulfilment, cancelling the order gives its payment back whole.
  if (!goodsHaveLeft(order.status)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `order ${order.number} is ${order.status}: only a fulfilled or completed order is refunded; cancel it to give its payment back`,
      {
        field: 'orderId',
      },
    );
  }
  const tenders = await lockedCapturedTenders(tx, input.orderId);
  const refundable = await refundableOfTenders(tx, tenders);
  const total = sum([...refundable.values()]);
  if (amount.gt(total)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `order ${order.number} has ${moneyString(total, order.currency)} ${order.currency} left to refund, less than the ${moneyString(amount, order.currency)} asked`,
      {
        field: 'amount',
        refundable: moneyString(total, order.currency),
      },
    );
  }
  const request = await tx.refundRequest.create({
    data: {
      orderId: input.orderId,
      amount,
      currency: order.currency,
      reason,
      source: input.source.kind,
      staffUserId: input.source.kind === 'STAFF' ? input.source.staffUserId : null,
      rmaId: input.source.kind === 'RMA' ? input.source.rmaId : null,
      idempotencyKey,
      status: 'REQUESTED',
    },
  });
  let left = amount;
  for (const tender of tenders) {
    if (left.lte(0)) break;
    const available = refundable.get(tender.id) ?? money(0);
    if (available.lte(0)) continue;
    const part = left.lt(available) ? left : available;
    await tx.refund.create({
      data: {
        refundRequestId: request.id,
        tenderId: tender.id,
        amount: part,
        destination: input.destination ?? 'ORIGINAL',
        status: 'REQUESTED',
      },
    });
    left = left.sub(part);
  }
  await deps.emit(tx, 'payments.refund_requested', { refund_request_id: idString(request.id), order_id: idString(input.orderId) });
  return refundRequestView(tx, request.id);
}

/** A refund staff act on, under its tender's row lock (as every refund path takes it). */
async function lockedRefund(tx: Tx, refundId: bigint) {
  const found = await tx.refund.findUnique({ where: { id: refundId }, select: { tenderId: true } });
  if (found === null) throw notFound('refund', refundId, 'refundId');
  await tx.$executeRaw`SELECT 1 FROM payment_tenders WHERE id = ${found.tenderId} FOR UPDATE`;
  return tx.refund.findUniqueOrThrow({ where: { id: refundId }, include: { request: { select: { orderId: true } } } });
}

function notFailed(refund: { id: bigint; status: RefundStatus }): DomainError {
  return new DomainError(
    'BAD_USER_INPUT',
    `refund ${refund.id} is ${refund.status}: only a FAILED refund is retried or sent to store credit`,
    { field: 'refundId' },
  );
}

async function reopened(tx: Tx, deps: DomainDeps, requestId: bigint, orderId: bigint): Promise<RefundRequestView> {
  const request = await tx.refundRequest.findUniqueOrThrow({ where: { id: requestId }, select: { status: true } });
  await tx.refundRequest.update({
    where: { id: requestId },
    data: { status: refundRequestMachine.next(requestId, request.status, 'reopen') },
  });
  await deps.emit(tx, 'payments.refund_requested', { refund_request_id: idString(requestId), order_id: idString(orderId) });
  return refundRequestView(tx, requestId);
}

/**
 * Staff send a FAILED refund to the gateway again, as a new attempt under a key of its own (the
 * gateway keeps a declined refund's answer under the old key). A REQUESTED one (its run stranded: the
 * event parked while the engine was down) is handed to its workflow again under its current key.
 * PENDING: the request as it is.
 */
export async function retryRefund(tx: Tx, deps: DomainDeps, refundId: bigint): Promise<RefundRequestView> {
  const refund = await lockedRefund(tx, refundId);
  if (refund.status === 'REQUESTED') return reopened(tx, deps, refund.refundRequestId, refund.request.orderId);
  if (refund.status === 'PENDING') return refundRequestView(tx, refund.refundRequestId);
  if (refund.status !== 'FAILED') throw notFailed(refund);
  await tx.refund.update({
    where: { id: refund.id },
    data: { status: refundMachine.next(refund.id, refund.status, 'retry'), attempt: refund.attempt + 1, lastError: null },
  });
  return reopened(tx, deps, refund.refundRequestId, refund.request.orderId);
}

/**
 * Staff give a FAILED refund's amount to the customer's store credit instead: the refund is CANCELED
 * and a refund of the same tender and amount to STORE_CREDIT replaces it (the tender's capture is
 * given back all the same). Asked again: the request as it is. A guest order has no store credit account.
 */
export async function refundToStoreCredit(tx: Tx, deps: DomainDeps, refundId: bigint): Promise<RefundRequestView> {
  const refund = await lockedRefund(tx, refundId);
  if (refund.status === 'CANCELED' && (await tx.refund.count({ where: { replacesId: refund.id } })) > 0)
    return refundRequestView(tx, refund.refundRequestId);
  if (refund.status !== 'FAILED') throw notFailed(refund);
  const order = await tx.order.findUniqueOrThrow({ where: { id: refund.request.orderId }, select: { number: true, customerId: true } });
  if (order.customerId === null) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `order ${order.number} is a guest's: there is no store credit account to refund to; retry the refund instead`,
      { field: 'refundId' },
    );
  }
  await tx.refund.update({
    where: { id: refund.id },
    data: { status: refundMachine.next(refund.id, refund.status, 'send_to_store_credit') },
  });
  await tx.refund.create({
    data: {
      refundRequestId: refund.refundRequestId,
      tenderId: refund.tenderId,
      amount: refund.amount,
      destination: 'STORE_CREDIT',
      status: 'REQUESTED',
      replacesId: refund.id,
    },
  });
  return reopened(tx, deps, refund.refundRequestId, refund.request.orderId);
}
