export { type DomainDeps, idString, optionalId, type Shopper, type Tx } from './context.ts';
export { DomainError, notFound } from './domain-error.ts';
export { requireAmount, requireCurrency, requireDescription, requirePrice, requireSlug, requireText } from './fields.ts';
export { exponentOf, money, type Money, moneyString, roundMoney, sum } from './money.ts';
export { optionalText, requiredText } from './text.ts';
export { isUniqueViolation } from './unique-violation.ts';
export { defineMachine, type MachineDefinition, type MachineMove, type Refusal, type StateMachine } from './state-machine.ts';
