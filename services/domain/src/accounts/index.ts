export { findChannel } from './channels.ts';
export { customerApprovalView, type CustomerApprovalView, expireCustomerApproval, remindCustomerApproval } from './customer-approval.ts';
export {
  approveBusinessCustomer,
  authenticateCustomer,
  type CustomerAccount,
  registerCustomer,
  rejectBusinessCustomer,
  signedInCustomer,
} from './customers.ts';
export { normalizeEmail } from './email.ts';
export { captureLead } from './leads.ts';
export {
  assertPasswordPolicy,
  checkPassword,
  hashPassword,
  limitPasswordQueue,
  PASSWORD_MAX_LENGTH,
  PasswordQueueFullError,
  upgradedHash,
} from './passwords.ts';
