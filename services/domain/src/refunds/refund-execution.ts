import type { GatewayOperation, PaymentTender, Refund, RefundRequestStatus } from '@shop/platform';
import { type DomainDeps, DomainError, idString, moneyString, optionalId, type Tx } from '../kernel/index.ts';
import { gatewayOf, lockedTender, recordMovement, tenderMachine, toMinorUnits } from '../tenders/index.ts';
import { accountOfStoreCreditTender, creditBack, customerStoreCreditAccount } from '../store-credit/index.ts';
import { refundMachine, type RefundRequestMove, refundRequestMachine } from './refund-status.ts';

/**
 * Running a refund request's refunds (RefundExecutionWorkflow's activity, or the api in-process
 * without a workflow engine): each refund in a transaction of its own, under its tender's row lock,
 * keyed so that a retry after any crash moves money once (docs/money.md#refunds).
 */

export const refundKeys = {
  /** Each attempt at the gateway has its own key: a retry staff ask for after a refusal is a new request, a retry after a crash replays. */
  gateway: (refundId: bigint, attempt: number): string => `refund:${refundId}:${attempt}`,
  /** A ledger credit is never refused, so one key serves every attempt. */
  ledger: (refundId: bigint): string => `refund:${refundId}`,
};

/** Why a refund failed for good: the gateway's refusal, or the shop's own guard against refunding beyond the capture. */
export interface RefundFailure {
  readonly refundId: string;
  readonly tenderId: string;
  readonly code: string;
  readonly message: string;
}

/** The move that brings a request to the status its refunds give it. */
const REQUEST_MOVE_TO: Readonly<Record<RefundRequestStatus, RefundRequestMove>> = {
  SUCCEEDED: 'succeed',
  NEEDS_ATTENTION: 'need_attention',
  REQUESTED: 'reopen',
};

/** The request's status from its refunds: one failed is NEEDS_ATTENTION, all settled SUCCEEDED, else REQUESTED. */
async function updateRequestStatus(tx: Tx, requestId: bigint): Promise<void> {
  const refunds = await tx.refund.findMany({
    where: { refundRequestId: requestId, status: { not: 'CANCELED' } },
    select: { status: true },
  });
  const status: RefundRequestStatus = refunds.some((refund) => refund.status === 'FAILED')
    ? 'NEEDS_ATTENTION'
    : refunds.every((refund) => refund.status === 'SUCCEEDED')
      ? 'SUCCEEDED'
      : 'REQUESTED';
  const request = await tx.refundRequest.findUniqueOrThrow({ where: { id: requestId }, select: { status: true } });
  if (request.status === status) return;
  await tx.refundRequest.update({
    where: { id: requestId },
    data: { status: refundRequestMachine.next(requestId, request.status, REQUEST_MOVE_TO[status]) },
  });
}

/**
 * Records a refund given back for good: the tender's refunded amount (REFUNDED once all its capture
 * is back), its REFUNDED movement when the gateway moved the money, and shop.payments.refund_completed.v1.
 */
async function settle(
  tx: Tx,
  deps: DomainDeps,
  refund: Refund,
  tender: PaymentTender,
  settled: { operation: GatewayOperation | null; entryId: bigint | null },
): Promise<void> {
  const refundedAmount = tender.refundedAmount.add(refund.amount);
  const updated = await tx.paymentTender.update({
    where: { id: tender.id },
    data: {
      refundedAmount,
      status: tenderMachine.next(tender.id, tender.status, refundedAmount.eq(tender.capturedAmount) ? 'refund' : 'refund_part'),
    },
  });
  if (settled.operation !== null) await recordMovement(tx, deps, updated, 'REFUNDED', refund.amount, settled.operation);
  const settledAt = deps.now();
  await tx.refund.update({
    where: { id: refund.id },
    data: {
      status: refundMachine.next(refund.id, refund.status, 'settle'),
      settledAt,
      gatewayRefundId: settled.operation?.id ?? null,
      settlesAt: null,
    },
  });
  const request = await tx.refundRequest.findUniqueOrThrow({ where: { id: refund.refundRequestId } });
  await deps.emit(tx, 'shop.payments.refund_completed.v1', {
    refund_id: idString(refund.id),
    refund_request_id: idString(request.id),
    order_id: idString(request.orderId),
    tender_id: idString(tender.id),
    tender_kind: tender.kind,
    destination: refund.destination,
    amount: moneyString(refund.amount, request.currency),
    currency: request.currency,
    source: request.source,
    rma_id: optionalId(request.rmaId),
    gateway_refund_id: settled.operation?.id ?? null,
    store_credit_entry_id: optionalId(settled.entryId),
    occurred_at: settledAt.toISOString(),
  });
}

/** The refund's credit on a ledger: the gift card or store credit account the tender spent, or the customer's store credit instead of the card. */
async function creditLedger(tx: Tx, deps: DomainDeps, refund: Refund, tender: PaymentTender): Promise<bigint> {
  let accountId: bigint;
  if (refund.destination === 'STORE_CREDIT') {
    const order = await tx.order.findUniqueOrThrow({ where: { id: tender.orderId ?? -1n }, select: { customerId: true } });
    if (order.customerId === null) throw new Error(`refund ${refund.id} goes to store credit, but order ${tender.orderId} has no customer`);
    accountId = (await customerStoreCreditAccount(tx, order.customerId, tender.currency)).id;
  } else {
    accountId = await accountOfStoreCreditTender(tx, tender);
  }
  const entry = await creditBack(tx, deps, {
    accountId,
    amount: refund.amount,
    idempotencyKey: refundKeys.ledger(refund.id),
    note: `refund ${refund.id} of order ${tender.orderId}`,
    orderId: tender.orderId,
  });
  return entry.id;
}

async function fail(tx: Tx, refund: Refund, code: string, message: string): Promise<RefundFailure> {
  await tx.refund.update({
    where: { id: refund.id },
    data: { status: refundMachine.next(refund.id, refund.status, 'fail'), lastError: `${code}: ${message}`.slice(0, 1000) },
  });
  return { refundId: idString(refund.id), tenderId: idString(refund.tenderId), code, message };
}

/** A gateway that did not answer: nothing is recorded, and the same request with the same key is safe to send again. */
function unavailable(code: string, refund: Refund): DomainError {
  return new DomainError('UNAVAILABLE', `the payment gateway did not answer about refund ${refund.id} (${code}): run it again`, {
    gatewayCode: code,
  });
}

/**
 * Sends a REQUESTED card refund, or looks a PENDING one up, under the attempt's key. Approved: settled.
 * Pending: kept PENDING with the gateway's settlesAt. Refused for good: FAILED. No answer: throws
 * UNAVAILABLE, and the transaction rolls back (the retry sends the same key, and the gateway replays).
 */
async function refundAtGateway(tx: Tx, deps: DomainDeps, refund: Refund, tender: PaymentTender): Promise<RefundFailure | null> {
  const gateway = gatewayOf(deps);
  const idempotencyKey = refundKeys.gateway(refund.id, refund.attempt);
  const answer =
    refund.status === 'PENDING'
      ? await gateway.lookUp(idempotencyKey)
      : await gateway.refund({
          idempotencyKey,
          authorizationId: tender.gatewayReference,
          amount: toMinorUnits(refund.amount, tender.currency),
        });
  switch (answer.status) {
    case 'approved':
      await settle(tx, deps, refund, tender, { operation: answer, entryId: null });
      return null;
    case 'pending':
      await tx.refund.update({
        where: { id: refund.id },
        data: {
          status: refundMachine.next(refund.id, refund.status, 'wait'),
          gatewayRefundId: answer.id,
          settlesAt: new Date(answer.settlesAt),
        },
      });
      return null;
    case 'declined':
      return fail(tx, refund, answer.declineCode, 'the gateway declined the refund');
    case 'requires_action':
      return fail(tx, refund, 'requires_action', 'the gateway asked for a customer action, which a refund cannot take');
    case 'not_found':
      // The gateway accepted it (it was PENDING) and no longer knows the key: staff must look at the gateway before retrying.
      return fail(
        tx,
        refund,
        'not_found',
        `the gateway no longer knows the pending refund under ${idempotencyKey}: check it at the gateway before retrying`,
      );
    case 'error':
      if (answer.retryable) throw unavailable(answer.code, refund);
      return fail(tx, refund, answer.code, answer.message);
  }
}

/**
 * Runs one refund under its tender's row lock: a REQUESTED one is sent (card) or credited (gift card,
 * store credit, or store credit instead of the card), a PENDING one looked up. Settled, failed or
 * canceled already: nothing happens. Answers the failure for good, if any.
 */
export async function executeRefund(tx: Tx, deps: DomainDeps, refundId: bigint): Promise<RefundFailure | null> {
  const found = await tx.refund.findUnique({ where: { id: refundId }, select: { tenderId: true } });
  if (found === null) throw new DomainError('NOT_FOUND', `refund ${refundId} does not exist`, { field: 'refundId' });
  const tender = await lockedTender(tx, found.tenderId);
  const refund = await tx.refund.findUniqueOrThrow({ where: { id: refundId } });
  if (refund.status !== 'REQUESTED' && refund.status !== 'PENDING') return null;
  let failure: RefundFailure | null = null;
  if (refund.status === 'REQUESTED' && tender.refundedAmount.add(refund.amount).gt(tender.capturedAmount)) {
    // The split never asks this; a tender changed behind its back (by hand, in SQL) would.
    failure = await fail(
      tx,
      refund,
      'amount_exceeds_captured',
      `tender ${tender.id} captured ${moneyString(tender.capturedAmount, tender.currency)} and gave back ${moneyString(tender.refundedAmount, tender.currency)} already`,
    );
  } else if (tender.kind === 'CARD' && refund.destination === 'ORIGINAL') failure = await refundAtGateway(tx, deps, refund, tender);
  else await settle(tx, deps, refund, tender, { operation: null, entryId: await creditLedger(tx, deps, refund, tender) });
  await updateRequestStatus(tx, refund.refundRequestId);
  return failure;
}
