import type { BusinessApproval } from '@shop/platform';
import type { CustomerApprovalView } from '@shop/domain/accounts';
import type { OrderLifecycleView, RefundRequestProgress } from '@shop/domain/flows';
import type { WorkflowSettings } from '@shop/domain/settings';
import type { FulfilmentCapture } from '@shop/domain/tenders';
import type { SweepBatch } from '@shop/domain/workflows';

/** A fault a workflow found about one entity; the run that found it is the calling workflow's. */
export interface FaultInput {
  readonly entityType: string;
  readonly entityId: string;
  readonly reason: string;
  readonly details: Record<string, string | number | boolean | null>;
}

/**
 * The activities the workflows call: each one domain operation in its own transaction, its events
 * written through the outbox in it, safe to run again (Temporal retries an activity whose answer it
 * did not get). Times travel as ISO strings: the workflow's clock decides, not the database's.
 */
export interface ShopActivities {
  workflowSettings(): Promise<WorkflowSettings>;
  expireStaleReservations(input: { asOf: string; limit: number }): Promise<SweepBatch>;
  deleteExpiredCarts(input: { asOf: string; limit: number }): Promise<SweepBatch>;
  /** Voids card authorizations lapsing within the margin, each under void:<tenderId>, so a retry voids once. */
  voidExpiringCardAuths(input: { asOf: string; limit: number }): Promise<SweepBatch>;
  /** Voids the cart tenders no order took whose hold ran out by `asOf`, each under void:<tenderId>, so a retry voids once. */
  voidIdleCartTenders(input: { asOf: string; limit: number }): Promise<SweepBatch>;
  /** Expires overdraft drafts past their expiry as of `asOf`, voiding the debit each let below zero. */
  expireOverdraftDrafts(input: { asOf: string; limit: number }): Promise<SweepBatch>;
  /** Expires return (RMA) drafts past their expiry as of `asOf`. */
  expireReturnDrafts(input: { asOf: string; limit: number }): Promise<SweepBatch>;
  /** Emits again the events of refund requests and fulfilled orders' captures stranded as of `asOf`: their listeners start or signal the workflows. */
  restartStrandedMoney(input: { asOf: string; limit: number }): Promise<SweepBatch>;
  orderLifecycleView(orderId: string): Promise<OrderLifecycleView | null>;
  /** Cancels the order when it still waits and its hold ran out by `asOf`; answers the order as it is afterwards. */
  expireUnpaidOrder(input: { orderId: string; asOf: string }): Promise<OrderLifecycleView | null>;
  remindOrderApproval(orderId: string): Promise<boolean>;
  /** Captures the fulfilled order's AUTHORIZED tenders, each under the key capture:<tenderId>, so a retry captures once. */
  captureOrderTenders(orderId: string): Promise<FulfilmentCapture>;
  customerApprovalView(customerId: string): Promise<CustomerApprovalView | null>;
  remindCustomerApproval(input: { customerId: string; expiresAt: string }): Promise<boolean>;
  expireCustomerApproval(customerId: string): Promise<BusinessApproval | null>;
  recordWorkflowFault(fault: FaultInput): Promise<boolean>;
  /**
   * Runs the request's REQUESTED refunds (card ones at the gateway under refund:<refundId>:<attempt>, so a
   * retry refunds once) and looks its PENDING ones up; records refund_exceeds_captured for a refusal of more than was captured.
   */
  runRefundRequest(refundRequestId: string): Promise<RefundRequestProgress>;
}
