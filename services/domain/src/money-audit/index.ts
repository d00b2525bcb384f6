export { auditMoney, failedChecks, formatMoneyAudit } from './money-audit.ts';
