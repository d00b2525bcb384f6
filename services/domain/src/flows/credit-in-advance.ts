import { type DomainDeps, DomainError, moneyString, type Tx } from '../kernel/index.ts';
import { executeRefund, refundRequestView, type RefundRequestView, requestRefund } from '../refunds/index.ts';
import { workflowSettings } from '../settings/index.ts';
import { creditInAdvanceKeys, unitsWorth } from './credit-clawback.ts';
import { lockOrderOfReturn, RETURN_DETAIL, type ReturnDetail, submitReturn } from '../returns/index.ts';

/**
 * Crediting a return in advance (returns, refunds, store credit). Guarantees: the return's submission and
 * its store credit happen in one transaction or not at all, and a return is credited once (key
 * rma:{id}:credit-in-advance).
 */

export interface CreditedReturn {
  readonly rma: ReturnDetail;
  /** The refund request that paid the return to store credit, already SUCCEEDED. */
  readonly refund: RefundRequestView;
}

/**
 * Staff submit a return (DRAFT -> REQUESTED) and credit the customer at once, before the goods come
 * back: a refund request of what every unit asked back is worth, split across the order's tenders
 * like any refund but paid to the customer's store credit, and run in this transaction (ledger
 * credits need no gateway). Its receipts then request nothing; the credit for the units that have not
 * arrived within `returnReceiptWindowHours` (or when staff cancel or close the return) is clawed back
 * (credit-clawback.ts). A guest's order has no store credit account: refused.
 */
export async function submitReturnWithCreditInAdvance(
  tx: Tx,
  deps: DomainDeps,
  returnId: bigint,
  staffUserId: bigint,
): Promise<CreditedReturn> {
  // The order before the return, as a receipt locks them; requestRefund locks the order again.
  await lockOrderOfReturn(tx, returnId);
  const submitted = await submitReturn(tx, deps, returnId, { kind: 'staff', staffUserId });
  if (submitted.order.customerId === null) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `order ${submitted.order.number} is a guest's: there is no store credit account to credit in advance; submit the return without it`,
      {
        field: 'creditInAdvance',
      },
    );
  }
  const worth = unitsWorth(submitted.lines, (line) => line.quantityRequested);
  if (worth.lte(0))
    throw new DomainError(
      'BAD_USER_INPUT',
      `return ${submitted.id} is worth 0.00 ${submitted.order.currency}: there is nothing to credit in advance`,
      { field: 'creditInAdvance' },
    );
  const requested = await requestRefund(tx, deps, {
    orderId: submitted.orderId,
    amount: moneyString(worth, submitted.order.currency),
    reason: `credit in advance for return ${submitted.id}`,
    idempotencyKey: creditInAdvanceKeys.credit(submitted.id),
    source: { kind: 'RMA', rmaId: submitted.id },
    destination: 'STORE_CREDIT',
  });
  for (const refund of requested.refunds) {
    const failure = await executeRefund(tx, deps, BigInt(refund.id));
    // A ledger credit is never refused; the guard against refunding beyond a capture the split respected cannot trip.
    if (failure !== null)
      throw new Error(
        `credit in advance for return ${submitted.id}: refund ${failure.refundId} failed (${failure.code}: ${failure.message})`,
      );
  }
  const { returnReceiptWindowHours } = await workflowSettings(tx);
  const requestedAt = submitted.requestedAt ?? deps.now();
  const rma = await tx.returnAuthorization.update({
    where: { id: submitted.id },
    data: { receiptDueAt: new Date(requestedAt.getTime() + returnReceiptWindowHours * 60 * 60 * 1000) },
    include: RETURN_DETAIL,
  });
  return { rma, refund: await refundRequestView(tx, BigInt(requested.id)) };
}
