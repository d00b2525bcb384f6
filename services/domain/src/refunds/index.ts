export { executeRefund, type RefundFailure, refundKeys } from './refund-execution.ts';
export {
  refundRequestsOfOrders,
  refundRequestView,
  type RefundRequestView,
  refundToStoreCredit,
  requestRefund,
  type RequestRefundInput,
  retryRefund,
} from './refund-requests.ts';
export { type RefundMove, refundMachine, type RefundRequestMove, refundRequestMachine } from './refund-status.ts';
