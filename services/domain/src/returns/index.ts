export { type ReturnDetail } from './return-events.ts';
export { returnMachine, type ReturnMove, returnStatusAfter } from './return-status.ts';
export {
  type CreateReturnDraft,
  createReturnDraft,
  expireReturnDrafts,
  findReturn,
  lockedReturn,
  lockOrderOfReturn,
  moveReturnWithoutGoods,
  type ReceiveReturn,
  receiveReturn,
  RETURN_DETAIL,
  type ReturnActor,
  type ReturnLineInput,
  returnsOfOrders,
  settleReturnOfRefundRequest,
  submitReturn,
} from './returns.ts';
