import type { Money as GatewayMoney } from '@shop/platform';
import { DomainError } from '../errors/domain-error.ts';
import { money, type Money } from '../money.ts';

/** The ISO 4217 exponent of a currency: 2 for EUR, 0 for JPY, 3 for BHD. */
function exponentOf(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** A stored amount as gateways take it, in integer minor units; refused when the currency has no such fraction (0.50 JPY). */
export function toMinorUnits(amount: Money, currency: string): GatewayMoney {
  const minor = amount.mul(10 ** exponentOf(currency));
  if (!minor.isInteger()) throw new DomainError('BAD_USER_INPUT', `${amount.toFixed(2)} ${currency} is not a whole number of ${currency}'s minor units`);
  return { amountMinor: minor.toNumber(), currency };
}

export function fromMinorUnits({ amountMinor, currency }: GatewayMoney): Money {
  return money(amountMinor).div(10 ** exponentOf(currency));
}
