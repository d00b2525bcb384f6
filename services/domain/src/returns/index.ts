export { type ReturnDetail } from './return-events.ts';
export { returnMachine, type ReturnMove, returnStatusAfter } from './return-status.ts';
export { createReturnDraft, expireReturnDrafts, findReturn, lockedReturn, lockOrderOfReturn, moveReturnWithoutGoods, receiveReturn, RETURN_DETAIL, type ReturnActor, type ReturnLineInput, returnsOfOrders, settleReturnOfRefundRequest, submitReturn } from './returns.ts';
