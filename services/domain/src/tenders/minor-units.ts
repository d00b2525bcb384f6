import type { Money as GatewayMoney } from '@shop/platform';
import { DomainError, exponentOf, money, type Money } from '../kernel/index.ts';

/** A stored amount as gateways take it, in integer minor units; refused when the currency has no such fraction (0.50 JPY). */
export function toMinorUnits(amount: Money, currency: string): GatewayMoney {
  const minor = amount.mul(10 ** exponentOf(currency));
  if (!minor.isInteger())
    throw new DomainError('BAD_USER_INPUT', `${amount.toFixed()} ${currency} is not a whole number of ${currency}'s minor units`);
  return { amountMinor: minor.toNumber(), currency };
}

export function fromMinorUnits({ amountMinor, currency }: GatewayMoney): Money {
  return money(amountMinor).div(10 ** exponentOf(currency));
}
