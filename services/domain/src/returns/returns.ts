import type { Prisma, ReturnReceipt } from '@shop/platform';
import { type DomainDeps, DomainError, LIMITS, moneyString, notFound, requireText, sum, type Tx } from '../kernel/index.ts';
import { goodsHaveLeft } from '../orders/index.ts';
import { refundRequestView, requestRefund, type RefundRequestView } from '../refunds/index.ts';
import { workflowSettings } from '../settings/index.ts';
import { returnStatusChanged, type ReturnDetail } from './return-events.ts';
import { returnStatusAfter, unitsHeld } from './return-status.ts';

/**
 * Returns (RMAs): a customer or staff ask back some units of a fulfilled order's lines, staff record
 * the goods as they arrive and each receipt requests the refund of what arrived. Every move locks
 * the return's row first; creating one locks its order's, so two returns of one order never ask back
 * the same units (docs/money.md, Returns).
 */

/** A return with its order and lines, as every move answers it. */
export const RETURN_DETAIL = {
  order: true,
  lines: { orderBy: { id: 'asc' }, include: { orderLine: true } },
} as const satisfies Prisma.ReturnAuthorizationInclude;

/** Who acts: the order's customer, or a staff user whose permission the caller checked. */
export type ReturnActor =
  { readonly kind: 'customer'; readonly customerId: bigint } | { readonly kind: 'staff'; readonly staffUserId: bigint };

export interface ReturnLineInput {
  readonly orderLineId: bigint;
  readonly quantity: number;
}

/** A customer reaches only their own orders' returns; another's is answered as missing, so ids reveal nothing. */
function assertReaches(actor: ReturnActor, customerId: bigint | null, missing: () => DomainError): void {
  if (actor.kind === 'customer' && customerId !== actor.customerId) throw missing();
}

/** Lines named once each, in whole units of at least one; BAD_USER_INPUT naming the line's field. */
function validLines(lines: readonly ReturnLineInput[]): readonly ReturnLineInput[] {
  if (lines.length === 0) throw new DomainError('BAD_USER_INPUT', 'name at least one order line and its quantity', { field: 'lines' });
  const seen = new Set<bigint>();
  lines.forEach((line, index) => {
    if (!Number.isInteger(line.quantity) || line.quantity < 1) {
      throw new DomainError('BAD_USER_INPUT', `lines[${index}].quantity must be a whole number of at least 1, not ${line.quantity}`, {
        field: `lines[${index}].quantity`,
      });
    }
    if (seen.has(line.orderLineId))
      throw new DomainError('BAD_USER_INPUT', `order line ${line.orderLineId} is named twice`, { field: `lines[${index}].orderLineId` });
    seen.add(line.orderLineId);
  });
  return lines;
}

/** Locks the order of a return: moves that lock both take the order first, as creating a return and requesting a refund lock it. */
export async function lockOrderOfReturn(tx: Tx, returnId: bigint): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM orders WHERE id = (SELECT order_id FROM return_authorizations WHERE id = ${returnId}) FOR UPDATE`;
}

export async function lockedReturn(tx: Tx, returnId: bigint): Promise<ReturnDetail> {
  await tx.$executeRaw`SELECT 1 FROM return_authorizations WHERE id = ${returnId} FOR UPDATE`;
  const rma = await tx.returnAuthorization.findUnique({ where: { id: returnId }, include: RETURN_DETAIL });
  if (rma === null) throw notFound('return', returnId, 'returnId');
  return rma;
}

/** Units of each order line that other returns of the order keep as of `now`. */
async function unitsHeldByReturns(tx: Tx, orderId: bigint, now: Date): Promise<Map<bigint, number>> {
  const lines = await tx.returnAuthorizationLine.findMany({
    where: { returnAuthorization: { orderId } },
    include: { returnAuthorization: true },
  });
  const held = new Map<bigint, number>();
  for (const line of lines) held.set(line.orderLineId, (held.get(line.orderLineId) ?? 0) + unitsHeld(line, line.returnAuthorization, now));
  return held;
}

export interface CreateReturnDraft {
  readonly orderId: bigint;
  readonly lines: readonly ReturnLineInput[];
  readonly reason: string;
  readonly actor: ReturnActor;
}

/**
 * A DRAFT return of some units of a fulfilled order's lines, expiring `rmaDraftLifetimeHours` from
 * now unless submitted. No line asks back more than was ordered less what other returns hold.
 */
export async function createReturnDraft(tx: Tx, deps: DomainDeps, input: CreateReturnDraft): Promise<ReturnDetail> {
  const reason = requireText('reason', input.reason, LIMITS.returnReason);
  const lines = validLines(input.lines);
  await tx.$executeRaw`SELECT 1 FROM orders WHERE id = ${input.orderId} FOR UPDATE`;
  const order = await tx.order.findUnique({ where: { id: input.orderId }, include: { lines: true } });
  const missingOrder = () => notFound('order', input.orderId, 'orderId');
  if (order === null) throw missingOrder();
  assertReaches(input.actor, order.customerId, missingOrder);
  if (!goodsHaveLeft(order.status)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `order ${order.number} is ${order.status}: only a FULFILLED or COMPLETED order's lines can be returned`,
      { field: 'orderId' },
    );
  }
  const now = deps.now();
  const held = await unitsHeldByReturns(tx, order.id, now);
  lines.forEach((line, index) => {
    const ordered = order.lines.find((candidate) => candidate.id === line.orderLineId);
    if (ordered === undefined) {
      throw new DomainError('BAD_USER_INPUT', `order line ${line.orderLineId} is not a line of order ${order.number}`, {
        field: `lines[${index}].orderLineId`,
      });
    }
    const returnable = ordered.quantity - (held.get(ordered.id) ?? 0);
    if (line.quantity > returnable) {
      throw new DomainError(
        'BAD_USER_INPUT',
        `${line.quantity} units of ${ordered.sku} asked back, but only ${returnable} of the ${ordered.quantity} ordered can still be returned (other returns hold the rest)`,
        { field: `lines[${index}].quantity`, returnable },
      );
    }
  });
  const { rmaDraftLifetimeHours } = await workflowSettings(tx);
  const rma = await tx.returnAuthorization.create({
    data: {
      orderId: order.id,
      status: 'DRAFT',
      reason,
      draftExpiresAt: new Date(now.getTime() + rmaDraftLifetimeHours * 60 * 60 * 1000),
      createdByStaffId: input.actor.kind === 'staff' ? input.actor.staffUserId : null,
      lines: { create: lines.map((line) => ({ orderLineId: line.orderLineId, quantityRequested: line.quantity })) },
    },
    include: RETURN_DETAIL,
  });
  await returnStatusChanged(tx, deps, rma, null);
  return rma;
}

/** DRAFT -> REQUESTED: the customer will send the goods. A draft past its expiry is refused, even before the sweep expired it. */
export async function submitReturn(tx: Tx, deps: DomainDeps, returnId: bigint, actor: ReturnActor): Promise<ReturnDetail> {
  const rma = await lockedReturn(tx, returnId);
  assertReaches(actor, rma.order.customerId, () => notFound('return', returnId, 'returnId'));
  const to = returnStatusAfter(rma.id, rma.status, 'submit');
  const now = deps.now();
  if (rma.draftExpiresAt <= now) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `return ${rma.id} expired as a draft at ${rma.draftExpiresAt.toISOString()}: create a new one`,
      { field: 'returnId' },
    );
  }
  const moved = await tx.returnAuthorization.update({
    where: { id: rma.id },
    data: { status: to, requestedAt: now },
    include: RETURN_DETAIL,
  });
  await returnStatusChanged(tx, deps, moved, rma.status);
  return moved;
}

/**
 * Moves a locked return whose goods, or the rest of them, will not come to CANCELLED, EXPIRED or
 * CLOSED: it holds only the units that arrived. A return credited in advance also needs its credit
 * clawed back: callers go through flows/return-closing.ts, which does both.
 */
export async function moveReturnWithoutGoods(
  tx: Tx,
  deps: DomainDeps,
  rma: ReturnDetail,
  move: 'cancel' | 'expire' | 'close',
): Promise<ReturnDetail> {
  const to = returnStatusAfter(rma.id, rma.status, move);
  const moved = await tx.returnAuthorization.update({
    where: { id: rma.id },
    data: { status: to, closedAt: deps.now() },
    include: RETURN_DETAIL,
  });
  await returnStatusChanged(tx, deps, moved, rma.status);
  return moved;
}

export interface ReceiveReturn {
  readonly returnId: bigint;
  /** Order lines of the return and how many of their units arrived in this delivery. */
  readonly lines: readonly ReturnLineInput[];
  /** Staff's key for this receipt: the same receipt sent again answers the first, received once. */
  readonly idempotencyKey: string;
  readonly staffUserId: bigint;
}

export interface ReturnReceiptResult {
  readonly rma: ReturnDetail;
  readonly receipt: ReturnReceipt;
  /** The refund the receipt requested; null when the order has no tender to give money back through, or the units are worth nothing. */
  readonly refund: RefundRequestView | null;
  /** False when the key found an earlier receipt, which this call answered without changing anything. */
  readonly recorded: boolean;
}

/** The refund request of a receipt: one per receipt, so a retried receipt requests it once. */
export const returnRefundKey = (returnId: bigint, receiptId: bigint): string => `rma:${returnId}:receipt:${receiptId}`;

/**
 * Requests the refund of what the receipt's units are worth, split across the order's tenders. An
 * order paid outside the shop's tenders (marked paid by staff) has nothing to refund through: no
 * request. One that has less left to refund than the units are worth refuses the whole receipt. A
 * return credited in advance requests nothing: the credit was its refund.
 */
async function refundReceipt(tx: Tx, deps: DomainDeps, rma: ReturnDetail, receipt: ReturnReceipt): Promise<RefundRequestView | null> {
  if (rma.receiptDueAt !== null) return null;
  if (receipt.amount.lte(0) || (await tx.paymentTender.count({ where: { orderId: rma.orderId } })) === 0) return null;
  return requestRefund(tx, deps, {
    orderId: rma.orderId,
    amount: moneyString(receipt.amount, rma.order.currency),
    reason: `goods of return ${rma.id} received (receipt ${receipt.id})`,
    idempotencyKey: returnRefundKey(rma.id, receipt.id),
    source: { kind: 'RMA', rmaId: rma.id },
  });
}

/**
 * RECEIVED -> REFUNDED once every refund request of the return succeeded (a return with none, whose
 * order had nothing to refund through, stays RECEIVED). Called after each run over a refund request
 * of a return, and by the receipt that completes it; anything else leaves the return as it is.
 */
async function settleReturnRefunds(tx: Tx, deps: DomainDeps, returnId: bigint): Promise<ReturnDetail> {
  const rma = await lockedReturn(tx, returnId);
  if (rma.status !== 'RECEIVED') return rma;
  const requests = await tx.refundRequest.findMany({ where: { rmaId: rma.id }, select: { status: true } });
  if (requests.length === 0 || requests.some((request) => request.status !== 'SUCCEEDED')) return rma;
  const moved = await tx.returnAuthorization.update({
    where: { id: rma.id },
    data: { status: returnStatusAfter(rma.id, rma.status, 'refund'), refundedAt: deps.now() },
    include: RETURN_DETAIL,
  });
  await returnStatusChanged(tx, deps, moved, rma.status);
  return moved;
}

/** The receipt written under the key, when a retried receipt finds it: the same receipt answers it, another is refused. */
async function replayedReceipt(tx: Tx, input: ReceiveReturn, idempotencyKey: string): Promise<ReturnReceipt | null> {
  const receipt = await tx.returnReceipt.findUnique({ where: { idempotencyKey }, include: { lines: { include: { returnLine: true } } } });
  if (receipt === null) return null;
  const same =
    receipt.returnAuthorizationId === input.returnId &&
    receipt.lines.length === input.lines.length &&
    input.lines.every((line) =>
      receipt.lines.some((earlier) => earlier.returnLine.orderLineId === line.orderLineId && earlier.quantity === line.quantity),
    );
  if (!same)
    throw new DomainError('CONFLICT', `the idempotency key ${JSON.stringify(idempotencyKey)} was already used for another receipt`, {
      field: 'idempotencyKey',
    });
  return receipt;
}

/** After a run over a refund request: the return it refunds, if any, becomes REFUNDED once all its requests succeeded. */
export async function settleReturnOfRefundRequest(tx: Tx, deps: DomainDeps, refundRequestId: bigint): Promise<void> {
  const request = await tx.refundRequest.findUnique({ where: { id: refundRequestId }, select: { rmaId: true, status: true } });
  if (request?.rmaId != null && request.status === 'SUCCEEDED') await settleReturnRefunds(tx, deps, request.rmaId);
}

/**
 * Records goods of a REQUESTED or PARTIALLY_RECEIVED return that arrived: PARTIALLY_RECEIVED while
 * units are still missing, RECEIVED once all are in. The receipt's amount is what the units are
 * worth at the order's unit prices, in its currency, and its refund is requested in the same
 * transaction (RefundExecutionWorkflow runs it).
 */
export async function receiveReturn(tx: Tx, deps: DomainDeps, input: ReceiveReturn): Promise<ReturnReceiptResult> {
  const idempotencyKey = requireText('idempotencyKey', input.idempotencyKey, LIMITS.idempotencyKey);
  const lines = validLines(input.lines);
  await lockOrderOfReturn(tx, input.returnId);
  const rma = await lockedReturn(tx, input.returnId);
  const replayed = await replayedReceipt(tx, input, idempotencyKey);
  if (replayed !== null) {
    const refund = await tx.refundRequest.findUnique({
      where: { idempotencyKey: returnRefundKey(rma.id, replayed.id) },
      select: { id: true },
    });
    return { rma, receipt: replayed, refund: refund === null ? null : await refundRequestView(tx, refund.id), recorded: false };
  }
  // Whether it is whole or partial, a receipt needs a return that waits for goods: said before the lines are checked.
  returnStatusAfter(rma.id, rma.status, 'receive_part');
  const arriving = lines.map((line, index) => {
    const expected = rma.lines.find((candidate) => candidate.orderLineId === line.orderLineId);
    if (expected === undefined) {
      throw new DomainError('BAD_USER_INPUT', `order line ${line.orderLineId} is not in return ${rma.id}`, {
        field: `lines[${index}].orderLineId`,
      });
    }
    const missing = expected.quantityRequested - expected.quantityReceived;
    if (line.quantity > missing) {
      throw new DomainError(
        'BAD_USER_INPUT',
        `${line.quantity} units of ${expected.orderLine.sku} received, but return ${rma.id} expects only ${missing} more`,
        {
          field: `lines[${index}].quantity`,
          expected: missing,
        },
      );
    }
    return { expected, quantity: line.quantity };
  });
  const allIn = rma.lines.every(
    (line) =>
      line.quantityReceived + (arriving.find((arrived) => arrived.expected.id === line.id)?.quantity ?? 0) === line.quantityRequested,
  );
  const to = returnStatusAfter(rma.id, rma.status, allIn ? 'receive_all' : 'receive_part');
  const receipt = await tx.returnReceipt.create({
    data: {
      returnAuthorizationId: rma.id,
      idempotencyKey,
      amount: sum(arriving.map(({ expected, quantity }) => expected.orderLine.unitPrice.mul(quantity))),
      currency: rma.order.currency,
      staffUserId: input.staffUserId,
      lines: { create: arriving.map(({ expected, quantity }) => ({ returnLineId: expected.id, quantity })) },
    },
  });
  for (const { expected, quantity } of arriving) {
    await tx.returnAuthorizationLine.update({ where: { id: expected.id }, data: { quantityReceived: { increment: quantity } } });
  }
  const moved = await tx.returnAuthorization.update({
    where: { id: rma.id },
    data: { status: to, ...(allIn ? { receivedAt: deps.now() } : {}) },
    include: RETURN_DETAIL,
  });
  if (to !== rma.status) await returnStatusChanged(tx, deps, moved, rma.status);
  const refund = await refundReceipt(tx, deps, moved, receipt);
  // The last units worth nothing, after refunds that all succeeded: nothing more will settle it.
  return { rma: refund === null ? await settleReturnRefunds(tx, deps, rma.id) : moved, receipt, refund, recorded: true };
}

/**
 * Expires up to `limit` DRAFT returns past their expiry as of `asOf`, the units they held free
 * again. Drafts being submitted or cancelled meanwhile are skipped (their row is locked); an
 * expired draft is never selected again (GcExpiredRmaDraftsWorkflow's pass).
 */
export async function expireReturnDrafts(
  tx: Tx,
  deps: DomainDeps,
  input: { asOf: Date; limit: number },
): Promise<{ expired: number; more: boolean }> {
  const due = await tx.$queryRaw<{ id: bigint }[]>`
    SELECT id FROM return_authorizations
     WHERE status = 'DRAFT' AND draft_expires_at <= ${input.asOf}
     ORDER BY draft_expires_at, id LIMIT ${input.limit} FOR UPDATE SKIP LOCKED`;
  for (const { id } of due) {
    const moved = await tx.returnAuthorization.update({
      where: { id },
      data: { status: returnStatusAfter(id, 'DRAFT', 'expire'), closedAt: deps.now() },
      include: RETURN_DETAIL,
    });
    await returnStatusChanged(tx, deps, moved, 'DRAFT');
  }
  return { expired: due.length, more: due.length === input.limit };
}

/** The return, or NOT_FOUND; a customer finds only their own orders' returns. */
export async function findReturn(db: Tx, returnId: bigint, actor: ReturnActor): Promise<ReturnDetail> {
  const rma = await db.returnAuthorization.findUnique({ where: { id: returnId }, include: RETURN_DETAIL });
  const missing = () => notFound('return', returnId, 'id');
  if (rma === null) throw missing();
  assertReaches(actor, rma.order.customerId, missing);
  return rma;
}

/** Each order's returns, oldest first: one query for a page of orders. */
export async function returnsOfOrders(db: Tx, orderIds: readonly bigint[]): Promise<Map<bigint, ReturnDetail[]>> {
  const returns = await db.returnAuthorization.findMany({
    where: { orderId: { in: [...orderIds] } },
    include: RETURN_DETAIL,
    orderBy: { id: 'asc' },
  });
  const byOrder = new Map<bigint, ReturnDetail[]>();
  for (const rma of returns) byOrder.set(rma.orderId, [...(byOrder.get(rma.orderId) ?? []), rma]);
  return byOrder;
}
