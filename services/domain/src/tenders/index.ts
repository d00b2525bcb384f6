export {
  authorizeCartTender,
  type CartCard,
  hasCartTender,
  lockedCartTender,
  payWithCartTender,
  staleCartTenderOf,
  voidCartTender,
} from './cart-tenders.ts';
export { voidIdleCartTenders } from './idle-cart-tenders.ts';
export { toMinorUnits } from './minor-units.ts';
export {
  captureAtFulfilment,
  captureOrderTenders,
  type CardRelease,
  type FulfilmentCapture,
  GATEWAY_TRANSACTION,
  gatewayOf,
  lockedTender,
  recordMovement,
  releaseOrderTenders,
  releaseTender,
  tenderKeys,
  tendersOfOrders,
  VOID_REFUSED,
} from './tenders.ts';
export { type TenderMove, tenderMachine } from './tender-status.ts';
