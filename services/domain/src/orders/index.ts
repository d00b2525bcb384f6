export { type Address, validAddress } from './address.ts';
export { quoteCart } from './cart-quote.ts';
export { trippedFraudRules } from './fraud-rules.ts';
export { remindOrderApproval } from './order-approval.ts';
export { orderPlaced, orderStatusChanged, type OrderWithLines } from './order-events.ts';
export { findOrder, listOrders } from './order-listing.ts';
export { goodsHaveLeft, holdsReservations, type OrderMove, orderMachine } from './order-status.ts';
export {
  approveOrder,
  changeOrderAddresses,
  completeOrder,
  fulfilOrder,
  lockedOrder,
  type LockedOrder,
  markOrderPaid,
  moveOrder,
} from './order-transitions.ts';
