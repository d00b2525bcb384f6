// The workflow bundle's entry: every workflow type the worker registers, by its exported name.
export { ExpireStaleReservationsWorkflow } from './expire-stale-reservations.ts';
export { CleanupExpiredCartsWorkflow } from './cleanup-expired-carts.ts';
export { VoidExpiringCardAuthsWorkflow } from './void-expiring-card-auths.ts';
export { GcExpiredOverdraftDraftsWorkflow } from './gc-expired-overdraft-drafts.ts';
export { GcExpiredRmaDraftsWorkflow } from './gc-expired-rma-drafts.ts';
export { GcExpiredCartTendersWorkflow } from './gc-expired-cart-tenders.ts';
export { ReconcileStrandedMoneyWorkflow } from './reconcile-stranded-money.ts';
export { OrderLifecycleWorkflow } from './order-lifecycle.ts';
export { OrderApprovalWorkflow } from './order-approval.ts';
export { CustomerApprovalWorkflow } from './customer-approval.ts';
export { RefundExecutionWorkflow } from './refund-execution.ts';
