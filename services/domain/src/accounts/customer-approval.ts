import type { BusinessApproval } from '@shop/platform';
import { idString, type DomainDeps, type Tx } from '../kernel/index.ts';

export interface CustomerApprovalView {
  readonly approvalStatus: BusinessApproval;
  readonly channelId: string;
  /** When the account registered: the approval's waits are measured from it (ISO). */
  readonly requestedAt: string;
}

/** null when the customer does not exist or is not a business account. */
export async function customerApprovalView(tx: Tx, customerId: bigint): Promise<CustomerApprovalView | null> {
  const customer = await tx.customer.findUnique({
    where: { id: customerId },
    select: { approvalStatus: true, channelId: true, createdAt: true },
  });
  if (customer?.approvalStatus == null) return null;
  return {
    approvalStatus: customer.approvalStatus,
    channelId: idString(customer.channelId),
    requestedAt: customer.createdAt.toISOString(),
  };
}

export async function customerApprovalChanged(
  tx: Tx,
  deps: DomainDeps,
  customer: { id: bigint; channelId: bigint; approvalStatus: BusinessApproval },
): Promise<void> {
  await deps.emit(tx, 'customer.approval_changed', {
    customer_id: idString(customer.id),
    channel_id: idString(customer.channelId),
    approval_status: customer.approvalStatus,
    occurred_at: deps.now().toISOString(),
  });
}

/** Emits shop.approvals.reminder_due.v1 when the account still waits; true when it did. */
export async function remindCustomerApproval(tx: Tx, deps: DomainDeps, customerId: bigint, expiresAt: Date): Promise<boolean> {
  const view = await customerApprovalView(tx, customerId);
  if (view?.approvalStatus !== 'PENDING') return false;
  await deps.emit(tx, 'shop.approvals.reminder_due.v1', {
    approval: 'customer_registration',
    subject_id: idString(customerId),
    channel_id: view.channelId,
    requested_at: view.requestedAt,
    expires_at: expiresAt.toISOString(),
    occurred_at: deps.now().toISOString(),
  });
  return true;
}

/** Nobody decided in time: a still PENDING account is REJECTED. Returns the status afterwards. */
export async function expireCustomerApproval(tx: Tx, deps: DomainDeps, customerId: bigint): Promise<BusinessApproval | null> {
  const rejected = await tx.customer.updateMany({
    where: { id: customerId, approvalStatus: 'PENDING' },
    data: { approvalStatus: 'REJECTED' },
  });
  const customer = await tx.customer.findUnique({ where: { id: customerId }, select: { id: true, channelId: true, approvalStatus: true } });
  if (customer?.approvalStatus == null) return null;
  if (rejected.count === 1) await customerApprovalChanged(tx, deps, { ...customer, approvalStatus: customer.approvalStatus });
  return customer.approvalStatus;
}
