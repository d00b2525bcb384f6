export { type DomainDeps, idString, optionalId, type Shopper, type Tx } from './context.ts';
export { DomainError, notFound } from './domain-error.ts';
export { exponentOf, money, type Money, moneyString, roundMoney, sum } from './money.ts';
export { defineMachine, type MachineDefinition, type MachineMove, type Refusal, type StateMachine } from './state-machine.ts';
export { isUniqueViolation } from './unique-violation.ts';
export {
  type Limit,
  LIMITS,
  optionalText,
  requireAmount,
  requireCurrency,
  requireDescription,
  requirePositiveAmount,
  requirePrice,
  requireSlug,
  requireText,
} from './validation.ts';
