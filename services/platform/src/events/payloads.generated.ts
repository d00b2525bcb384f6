// Generated from schemas/events by generate-payload-types.ts (npm run events:generate). Do not edit.

/**
 * In-process: a cart line was added (drives cart_add attribution)
 */
export interface CartItemAdded {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  cart_id: string;
  cart_line_id: string;
  customer_id: string | null;
  session_id: string | null;
  product_id: string;
  category_ids: string[];
  brand_id: string | null;
  quantity: number;
  added_at: string;
}

/**
 * In-process: a business account awaits approval or was decided (drives its approval workflow)
 */
export interface CustomerApprovalChanged {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  customer_id: string;
  channel_id: string;
  approval_status: "PENDING" | "APPROVED" | "REJECTED";
}

/**
 * In-process: an order completed (drives purchase attribution)
 */
export interface OrderCompleted {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  order_id: string;
  customer_id: string | null;
  session_id: string | null;
  completed_at: string;
  currency: string;
  /**
   * @minItems 1
   */
  lines: {
    order_line_id: string;
    product_id: string;
    category_id: string | null;
    brand_id: string | null;
    line_total: string;
  }[];
}

/**
 * In-process: an order moved to another status (drives its lifecycle workflow)
 */
export interface OrderStatusChanged {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  order_id: string;
  order_number: string;
  from: "PENDING_PAYMENT" | "AWAITING_APPROVAL" | "PLACED" | "FULFILLED" | "COMPLETED" | "CANCELLED" | null;
  to: "PENDING_PAYMENT" | "AWAITING_APPROVAL" | "PLACED" | "FULFILLED" | "COMPLETED" | "CANCELLED";
  reason: string | null;
}

/**
 * In-process: a refund request has refunds to run (new, or a failed refund retried or sent to store credit): drives its RefundExecutionWorkflow
 */
export interface PaymentsRefundRequested {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the refunds were requested, UTC.
   */
  occurred_at: string;
  refund_request_id: string;
  order_id: string;
}

/**
 * A customer account was created
 */
export interface AccountsCreatedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  customer_id: string;
  channel_id: string;
  email: string;
  customer_group_id: string | null;
  is_business: boolean;
  approval_status: "PENDING" | "APPROVED" | "REJECTED" | null;
}

/**
 * An approval has waited longer than its reminder time
 */
export interface ApprovalsReminderDueV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  approval: "customer_registration" | "order";
  subject_id: string;
  channel_id: string;
  requested_at: string;
  expires_at: string;
}

/**
 * A product was added to a cart
 */
export interface CartLineAddedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  cart_id: string;
  cart_line_id: string;
  channel_id: string;
  customer_id: string | null;
  session_id: string | null;
  product_id: string;
  sku: string;
  quantity: number;
  unit_price: string;
  currency: string;
}

/**
 * A product, or the brand or a category it shows, changed
 */
export interface CatalogProductChangedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  product_id: string;
  cause: "created" | "updated" | "deleted" | "brand_changed" | "category_changed";
}

/**
 * An order tripped a fraud rule and needs a check
 */
export interface FraudCheckRequestedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  order_id: string;
  order_number: string;
  customer_id: string | null;
  channel_id: string;
  total: string;
  currency: string;
  /**
   * @minItems 1
   */
  rules_tripped: {
    rule: string;
    detail: string;
  }[];
}

/**
 * The stock of a product at a location changed
 */
export interface InventoryStockChangedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  product_id: string;
  sku: string;
  location_id: string;
  previous_quantity: number;
  new_quantity: number;
  delta: number;
  reason: "adjustment" | "reservation" | "reservation_released" | "sale" | "return" | "restock";
  order_id: string | null;
}

/**
 * A lead (prospect) was captured
 */
export interface LeadsCreatedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  lead_id: string;
  channel_id: string;
  email: string;
  name: string | null;
  source: string;
}

/**
 * An order's lines or addresses changed
 */
export interface OrdersModifiedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  order_id: string;
  order_number: string;
  channel_id: string;
  /**
   * @minItems 1
   */
  changes: ("lines" | "shipping_address" | "billing_address")[];
  currency: string;
  totals: {
    subtotal: string;
    tax: string;
    shipping: string;
    discount: string;
    total: string;
  };
  lines: {
    order_line_id: string;
    product_id: string;
    sku: string;
    category_ids: string[];
    brand_id: string | null;
    quantity: number;
    unit_price: string;
    line_total: string;
  }[];
}

/**
 * An order was placed
 */
export interface OrdersPlacedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  order_id: string;
  order_number: string;
  channel_id: string;
  customer_id: string | null;
  session_id: string | null;
  status: "PENDING_PAYMENT" | "PLACED" | "AWAITING_APPROVAL";
  currency: string;
  totals: {
    subtotal: string;
    tax: string;
    shipping: string;
    discount: string;
    total: string;
  };
  /**
   * @minItems 1
   */
  lines: {
    order_line_id: string;
    product_id: string;
    sku: string;
    category_ids: string[];
    brand_id: string | null;
    quantity: number;
    unit_price: string;
    line_total: string;
  }[];
}

/**
 * An order was placed or moved to another status
 */
export interface OrdersStatusChangedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  order_id: string;
  order_number: string;
  from: "PENDING_PAYMENT" | "AWAITING_APPROVAL" | "PLACED" | "FULFILLED" | "COMPLETED" | "CANCELLED" | null;
  to: "PENDING_PAYMENT" | "AWAITING_APPROVAL" | "PLACED" | "FULFILLED" | "COMPLETED" | "CANCELLED";
}

/**
 * Money moved on a tender at the payment gateway: authorized, captured, voided or refunded
 */
export interface PaymentsMoneyMovedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the gateway recorded the movement, UTC, on the gateway's clock.
   */
  occurred_at: string;
  tender_id: string;
  order_id: string | null;
  tender_kind: "CARD" | "STORE_CREDIT" | "GIFT_CARD";
  movement: "AUTHORIZED" | "CAPTURED" | "VOIDED" | "REFUNDED";
  amount: string;
  currency: string;
  gateway_operation_id: string;
}

/**
 * A refund of one tender, part of a refund request, was given back for good: at the gateway, to a gift card or store credit account
 */
export interface PaymentsRefundCompletedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the refund settled, UTC.
   */
  occurred_at: string;
  refund_id: string;
  refund_request_id: string;
  order_id: string;
  tender_id: string;
  tender_kind: "CARD" | "STORE_CREDIT" | "GIFT_CARD";
  destination: "ORIGINAL" | "STORE_CREDIT";
  amount: string;
  currency: string;
  source: "STAFF" | "RMA";
  rma_id: string | null;
  gateway_refund_id: string | null;
  store_credit_entry_id: string | null;
}

/**
 * A store credit ledger entry was written or changed status: credit issued, credit spent, an overdraft debit voided
 */
export interface PaymentsStoreCreditMovedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the entry was written or changed status, UTC.
   */
  occurred_at: string;
  account_id: string;
  customer_id: string | null;
  entry_id: string;
  entry_kind: "CREDIT" | "DEBIT";
  entry_status: "PENDING" | "POSTED" | "VOIDED";
  amount: string;
  currency: string;
  /**
   * The account's balance after the change: negative only while an overdraft draft is open.
   */
  balance: string;
  order_id: string | null;
  /**
   * The overdraft draft that let this debit take the balance below zero.
   */
  overdraft_draft_id: string | null;
}

/**
 * A return (RMA) was created or moved to another status
 */
export interface ReturnsStatusChangedV1 {
  /**
   * Unique per event; consumers deduplicate by it.
   */
  event_id: string;
  schema_version: 1;
  /**
   * When the change happened, UTC.
   */
  occurred_at: string;
  return_id: string;
  order_id: string;
  order_number: string;
  /**
   * The order's customer; null for a guest's order.
   */
  customer_id: string | null;
  /**
   * Null when the return was just created.
   */
  from:
    "DRAFT" | "REQUESTED" | "PARTIALLY_RECEIVED" | "RECEIVED" | "REFUNDED" | "CANCELLED" | "EXPIRED" | "CLOSED" | null;
  to: "DRAFT" | "REQUESTED" | "PARTIALLY_RECEIVED" | "RECEIVED" | "REFUNDED" | "CANCELLED" | "EXPIRED" | "CLOSED";
  /**
   * @minItems 1
   */
  lines: {
    order_line_id: string;
    sku: string;
    quantity_requested: number;
    quantity_received: number;
  }[];
}

/** Every event by name: broker topics and in-process events. */
export interface EventPayloads {
  'cart.item_added': CartItemAdded;
  'customer.approval_changed': CustomerApprovalChanged;
  'order.completed': OrderCompleted;
  'order.status_changed': OrderStatusChanged;
  'payments.refund_requested': PaymentsRefundRequested;
  'shop.accounts.created.v1': AccountsCreatedV1;
  'shop.approvals.reminder_due.v1': ApprovalsReminderDueV1;
  'shop.cart.line_added.v1': CartLineAddedV1;
  'shop.catalog.product_changed.v1': CatalogProductChangedV1;
  'shop.fraud.check_requested.v1': FraudCheckRequestedV1;
  'shop.inventory.stock_changed.v1': InventoryStockChangedV1;
  'shop.leads.created.v1': LeadsCreatedV1;
  'shop.orders.modified.v1': OrdersModifiedV1;
  'shop.orders.placed.v1': OrdersPlacedV1;
  'shop.orders.status_changed.v1': OrdersStatusChangedV1;
  'shop.payments.money_moved.v1': PaymentsMoneyMovedV1;
  'shop.payments.refund_completed.v1': PaymentsRefundCompletedV1;
  'shop.payments.store_credit_moved.v1': PaymentsStoreCreditMovedV1;
  'shop.returns.status_changed.v1': ReturnsStatusChangedV1;
}
