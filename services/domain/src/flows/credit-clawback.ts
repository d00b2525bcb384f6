import { type DomainDeps, type Money, moneyString, sum, type Tx } from '../kernel/index.ts';
import { customerStoreCreditAccount, debitStoreCredit, type StoreCreditDebit } from '../store-credit/index.ts';
import { workflowSettings } from '../settings/index.ts';
import type { ReturnDetail } from '../returns/index.ts';

/**
 * Clawing back a credit in advance (returns, store credit). Guarantees: a return's credit is clawed back at
 * most once (key clawback:return:{id}) and never beyond what was credited; what the balance no longer
 * covers becomes a REFUND_CLAWBACK overdraft draft, in the transaction that closes the return.
 */

/** The keys of a return credited in advance, stable across retries (docs/money.md, Returns). */
export const creditInAdvanceKeys = {
  /** The refund request paying the return to store credit at its submission: one per return. */
  credit: (returnId: bigint): string => `rma:${returnId}:credit-in-advance`,
  /** The debit taking back the credit for the units that never came: one per return, whoever closes it first. */
  clawback: (returnId: bigint): string => `clawback:return:${returnId}`,
};

/** What some units of each of a return's lines are worth at their order line's unit price: the credit in advance's price. */
export function unitsWorth(lines: ReturnDetail['lines'], units: (line: ReturnDetail['lines'][number]) => number): Money {
  return sum(lines.map((line) => line.orderLine.unitPrice.mul(units(line))));
}

/**
 * Takes back the credit a return got in advance for the units that will no longer come (the return
 * was cancelled or expired with none of them, or closed with some missing): a debit of what those
 * units are worth, priced as the credit was, under `clawback:return:{id}`, never more than was
 * credited. What the balance still covers is posted; what the customer already spent becomes a
 * REFUND_CLAWBACK overdraft draft expiring `refundClawbackOverdraftHours` from now. Null for a return
 * not credited in advance. The caller holds the return's lock and has closed it: a return closes
 * once, so it is clawed back once.
 */
export async function clawBackCreditInAdvance(tx: Tx, deps: DomainDeps, rma: ReturnDetail): Promise<StoreCreditDebit | null> {
  if (rma.receiptDueAt === null || rma.order.customerId === null) return null;
  const request = await tx.refundRequest.findUniqueOrThrow({
    where: { idempotencyKey: creditInAdvanceKeys.credit(rma.id) },
    include: { refunds: { where: { destination: 'STORE_CREDIT', status: 'SUCCEEDED' } } },
  });
  const credited = sum(request.refunds.map((refund) => refund.amount));
  const unreceived = unitsWorth(rma.lines, (line) => line.quantityRequested - line.quantityReceived);
  const amount = unreceived.gt(credited) ? credited : unreceived;
  if (amount.lte(0)) return null;
  const account = await customerStoreCreditAccount(tx, rma.order.customerId, rma.order.currency);
  const { refundClawbackOverdraftHours } = await workflowSettings(tx);
  const missing = rma.lines.reduce((units, line) => units + line.quantityRequested - line.quantityReceived, 0);
  const asked = rma.lines.reduce((units, line) => units + line.quantityRequested, 0);
  return debitStoreCredit(tx, deps, {
    accountId: account.id,
    amount: moneyString(amount, rma.order.currency),
    note: `credit in advance for return ${rma.id} taken back: the return is ${rma.status} and ${missing} of its ${asked} units never arrived`,
    idempotencyKey: creditInAdvanceKeys.clawback(rma.id),
    orderId: rma.orderId,
    overdraft: { reason: 'REFUND_CLAWBACK', expiresAt: new Date(deps.now().getTime() + refundClawbackOverdraftHours * 60 * 60 * 1000) },
  });
}
