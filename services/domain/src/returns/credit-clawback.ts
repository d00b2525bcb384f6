import type { DomainDeps, Tx } from '../context.ts';
import { moneyString, sum } from '../money.ts';
import { customerStoreCreditAccount, debitStoreCredit, type StoreCreditDebit } from '../payments/store-credit.ts';
import { workflowSettings } from '../settings/workflow-settings.ts';
import type { ReturnDetail } from './return-events.ts';

/** The keys of a return credited in advance, stable across retries (docs/money.md, Returns). */
export const creditInAdvanceKeys = {
  /** The refund request paying the return to store credit at its submission: one per return. */
  credit: (returnId: bigint): string => `rma:${returnId}:credit-in-advance`,
  /** The debit taking that credit back when the goods never came: one per return, whoever closes it first. */
  clawback: (returnId: bigint): string => `clawback:return:${returnId}`,
};

/**
 * Takes back the credit a return got in advance, once its goods will no longer come (the return was
 * cancelled, or expired unreceived): a debit of what was credited under `clawback:return:{id}`. What
 * the balance still covers is posted; what the customer already spent becomes a REFUND_CLAWBACK
 * overdraft draft expiring `refundClawbackOverdraftHours` from now. Null for a return not credited in
 * advance. The caller holds the return's lock and has closed it.
 */
export async function clawBackCreditInAdvance(tx: Tx, deps: DomainDeps, rma: ReturnDetail): Promise<StoreCreditDebit | null> {
  if (rma.receiptDueAt === null || rma.order.customerId === null) return null;
  const request = await tx.refundRequest.findUniqueOrThrow({
    where: { idempotencyKey: creditInAdvanceKeys.credit(rma.id) },
    include: { refunds: { where: { destination: 'STORE_CREDIT', status: 'SUCCEEDED' } } },
  });
  const credited = sum(request.refunds.map((refund) => refund.amount));
  if (credited.lte(0)) return null;
  const account = await customerStoreCreditAccount(tx, rma.order.customerId, rma.order.currency);
  const { refundClawbackOverdraftHours } = await workflowSettings(tx);
  return debitStoreCredit(tx, deps, {
    accountId: account.id,
    amount: moneyString(credited, rma.order.currency),
    note: `credit in advance for return ${rma.id} taken back: the return is ${rma.status} and its goods never arrived`,
    idempotencyKey: creditInAdvanceKeys.clawback(rma.id),
    orderId: rma.orderId,
    overdraft: { reason: 'REFUND_CLAWBACK', expiresAt: new Date(deps.now().getTime() + refundClawbackOverdraftHours * 60 * 60 * 1000) },
  });
}
