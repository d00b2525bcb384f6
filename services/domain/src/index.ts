export { topicSubscriptions } from './subscriptions/index.ts';
export { defineSubscription, subscriptionListeners, type TopicEvent, type TopicSubscription } from './events/topic-subscription.ts';
export { extensionSubscriptions } from './events/extension-subscriptions.ts';
export { auditSubscription } from './audit/audit-subscription.ts';
export { DomainError, notFound, type DomainErrorCode } from './kernel/domain-error.ts';
export { moneyString } from './kernel/money.ts';
export { ORDER_TRANSITIONS, assertTransition, canTransition, holdsReservations } from './orders/order-status.ts';
export {
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PasswordQueueFullError,
  assertPasswordPolicy,
  hashPassword,
  limitPasswordQueue,
  verifyPassword,
} from './accounts/passwords.ts';
export { normalizeEmail } from './accounts/email.ts';
export {
  approveBusinessCustomer,
  authenticateCustomer,
  registerCustomer,
  rejectBusinessCustomer,
  signedInCustomer,
  type CustomerAccount,
  type RegisterCustomerInput,
} from './accounts/customers.ts';
export { captureLead, type CaptureLeadInput } from './accounts/leads.ts';
export { findChannel } from './accounts/channels.ts';
export { customerPrincipal, staffPrincipal, type CustomerPrincipal, type Principal, type StaffPrincipal } from './auth/principal.ts';
export {
  ADMIN_ROLE,
  CORE_PERMISSIONS,
  authorizeStaff,
  holdsPermission,
  permissionsOf,
  requirePermission,
  upsertPermissions,
  type CorePermission,
  type PermissionDeclaration,
} from './auth/permissions.ts';
export { ensureRole, type EnsureRoleInput } from './auth/roles.ts';
export { authenticateStaff, createStaffUser, ensureAdmin, isActiveStaff, signedInStaff, type CreateStaffUserInput, type StaffAccount } from './auth/staff.ts';
export { DEFAULT_TOKEN_SETTINGS, tokenSettings, type TokenSettings } from './auth/token-settings.ts';
export { signAccessToken, verifyAccessToken, type AccessTokenRejection } from './auth/access-tokens.ts';
export { issueGuestSessionId, verifyGuestSessionId } from './auth/guest-sessions.ts';
export { FINISHED_SIGN_IN_GRACE_HOURS, pruneFinishedSignIns, revokeAllRefreshTokens, revokeRefreshToken } from './auth/refresh-tokens.ts';
export { issueTokens, refreshTokens, type RefreshRejection, type TokenPair } from './auth/tokens.ts';
export { idString, optionalId, type DomainDeps, type Shopper, type Tx } from './kernel/context.ts';
export { createBrand, createCategory, createChannel, createProduct, type ProductInput } from './catalog/catalog-admin.ts';
export {
  deleteBrand,
  deleteCategory,
  deleteProduct,
  updateBrand,
  updateCategory,
  updateProduct,
  type BrandPatch,
  type CategoryPatch,
  type ProductPatch,
} from './catalog/catalog-changes.ts';
export { sellableProducts, type SellableProduct } from './catalog/sellable-products.ts';
export {
  PRODUCT_IMAGE_MAX_BYTES,
  PRODUCT_IMAGE_TYPES,
  productImageUpload,
  setProductImage,
  type ProductImageRequest,
  type ProductImageUpload,
} from './catalog/product-images.ts';
export { listBrands, listChannels, subcategories, topCategories } from './catalog/catalog-listings.ts';
export {
  availableUnits,
  brandsByIds,
  categoriesByIds,
  categoriesOfProducts,
  productsByIds,
  storefrontProduct,
  storefrontProducts,
  type CategoryWithParent,
  type ProductWithRelations,
  type SqlReader,
  type StorefrontBrand,
  type StorefrontCategory,
  type StorefrontListing,
  type StorefrontProduct,
} from './catalog/storefront-reads.ts';
export { setStockOnHand } from './inventory/stock.ts';
export { countStock, createStockLocation, listStockLocations, type StockCount } from './inventory/stock-locations.ts';
export { addCartLine, createCart, MAX_LINE_QUANTITY, setCartLineQuantity, viewCart, type CartView } from './carts/carts.ts';
export { placeOrder, type PlaceOrderInput } from './flows/place-order.ts';
export { checkout } from './flows/checkout.ts';
export {
  customerStoreCreditAccount,
  customerStoreCreditBalances,
  debitStoreCredit,
  expireOverdraftDrafts,
  findGiftCard,
  findStoreCreditAccount,
  issueGiftCard,
  issueStoreCredit,
  storeCreditBalance,
  storeCreditEntries,
  type DebitStoreCredit,
  type IssueGiftCard,
  type IssueStoreCredit,
  type Overdraft,
  type StoreCreditDebit,
} from './store-credit/store-credit.ts';
export { executeRefund, REFUND_EXCEEDS_CAPTURED, refundKeys, runRefundRequest, type RefundRequestProgress } from './refunds/refund-execution.ts';
export {
  refundRequestsOfOrders,
  refundRequestView,
  refundToStoreCredit,
  requestRefund,
  retryRefund,
  type RefundRequestView,
  type RefundSource,
  type RefundView,
  type RequestRefundInput,
} from './refunds/refund-requests.ts';
export { STALE_CARD_AUTHORIZATION } from './tenders/cart-tenders.ts';
export { voidIdleCartTenders } from './tenders/idle-cart-tenders.ts';
export { captureAtFulfilment, captureOrderTenders, captureTender, GATEWAY_TRANSACTION, tenderKeys, tendersOfOrder, tendersOfOrders, type FulfilmentCapture } from './tenders/tenders.ts';
export {
  cancelReturn,
  closeReturn,
  createReturnDraft,
  expireReturnDrafts,
  expireUnreceivedReturns,
  findReturn,
  receiveReturn,
  returnsOfOrders,
  submitReturn,
  type CreateReturnDraft,
  type ReceiveReturn,
  type ReturnActor,
  type ReturnLineInput,
  type ReturnReceiptResult,
} from './returns/returns.ts';
export type { ReturnDetail } from './returns/return-events.ts';
export { submitReturnWithCreditInAdvance, type CreditedReturn } from './flows/credit-in-advance.ts';
export { creditInAdvanceKeys } from './flows/credit-clawback.ts';
export type { Address } from './orders/address.ts';
export type { OrderWithLines } from './orders/order-events.ts';
export { findOrder, listOrders, type OrderListing } from './orders/order-listing.ts';
export {
  approveOrder,
  cancelOrder,
  changeOrderAddresses,
  completeOrder,
  fulfilOrder,
  markOrderPaid,
} from './orders/order-transitions.ts';
export {
  HELD_FOR_SETTLED_ORDER,
  expireStaleReservations,
  expireUnpaidOrder,
  orderLifecycleView,
  type OrderLifecycleView,
  type StaleReservationSweep,
} from './flows/order-expiry.ts';
export { remindOrderApproval } from './orders/order-approval.ts';
export { customerApprovalView, expireCustomerApproval, remindCustomerApproval, type CustomerApprovalView } from './accounts/customer-approval.ts';
export { deleteExpiredCarts } from './carts/expired-carts.ts';
export { DEFAULT_WORKFLOW_SETTINGS, WORKFLOW_SETTINGS_KEY, workflowSettings, type WorkflowSettings } from './settings/workflow-settings.ts';
export { restartStrandedRefundsPass, SWEEP_PASSES, type SweepPass, type SweepPassDeps, type SweepPassInput } from './flows/sweeps.ts';
export { sweepPace, type SweepPace } from './workflow-runs/sweep-pace.ts';
export { restartStrandedCaptures, restartStrandedRefundRequests, STRANDED_AFTER_MINUTES, type StrandedPass } from './flows/stranded-money.ts';
export { recordWorkflowFault, workflowFaults, type WorkflowFault, type WorkflowFaultFilter, type WorkflowRun } from './workflow-runs/faults.ts';
export { readSetting, storeSetting } from './settings/settings-store.ts';
export { secretStatus, storeSecret, type SecretInput } from './settings/secret-settings.ts';
export { extensionSettingViews, resetExtensionSetting, storeExtensionSecret, storeExtensionSetting, type ExtensionSettingView } from './settings/extension-settings.ts';
export {
  LAST_USED_PRECISION_MS,
  activeStorefrontTokens,
  createStorefrontToken,
  listStorefrontTokens,
  recordStorefrontTokenUse,
  revokeStorefrontToken,
  storefrontTokenHash,
  type ActiveStorefrontToken,
  type StorefrontToken,
} from './storefront-tokens/storefront-tokens.ts';
export { CHECKOUT_SETTINGS_KEY, DEFAULT_CHECKOUT_SETTINGS, checkoutSettings, type CheckoutSettings, type FraudRules } from './settings/checkout-settings.ts';
export {
  MAX_BIGINT,
  TRACKED_ENTITY_TYPES,
  TRACKING_EVENT_TYPES,
  TRACKING_FIELD_LENGTHS,
  fitText,
  insertTrackingEvents,
  type SqlClient,
  type TrackedEntityType,
  type TrackingEventRecord,
  type TrackingEventType,
} from './tracking/tracking-events.ts';
export { RepeatClicks, type Click, type RepeatClicksOptions } from './tracking/repeat-clicks.ts';
export {
  ATTRIBUTION_WINDOW_MS,
  attributeCartAdd,
  attributeCartAddListener,
  attributePurchase,
  attributePurchaseListener,
  trackingListeners,
  type AttributionType,
} from './tracking/attribution.ts';
export {
  MAX_REPORT_DAYS,
  MAX_REPORT_ENTITY_IDS,
  ROLLUP_SETTLE_MS,
  assertReportQuery,
  isUtcDay,
  lastSettledDay,
  rawDailyRevenue,
  rawDailyStats,
  rawRows,
  rolledUpRows,
  rollUpTrackingDays,
  rollUpTrackingDaysOf,
  trackingReport,
  type Money,
  type TrackingReportKey,
  type TrackingReportPage,
  type TrackingReportQuery,
  type TrackingReportRow,
  type UtcDay,
} from './tracking/reports.ts';
export { ADMIN_INDEX, STOREFRONT_INDEX, SEARCH_INDEXES, type SearchIndexName } from './search/search-indexes.ts';
export { searchSubscription } from './search/search-subscription.ts';
export { reindexSearch, type ReindexOptions, type ReindexProgress } from './search/reindex.ts';
export { searchAdmin, searchStorefront, type AdminSearch, type SearchPage, type StorefrontSearch } from './search/search-queries.ts';
