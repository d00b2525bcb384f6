import { DomainError } from './domain-error.ts';
import { exponentOf, fitsCurrency, money, moneyString, type Money } from './money.ts';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const CURRENCY = /^[A-Z]{3}$/;

export function requireText(field: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new DomainError('BAD_USER_INPUT', `${field} must not be empty`, { field });
  if (trimmed.length > max) throw new DomainError('BAD_USER_INPUT', `${field} must be at most ${max} characters`, { field });
  return trimmed;
}

export function requireSlug(value: string): string {
  const slug = requireText('slug', value, 200);
  if (!SLUG.test(slug)) throw new DomainError('BAD_USER_INPUT', 'slug must be lower-case words joined by hyphens, e.g. black-tee', { field: 'slug' });
  return slug;
}

/** The most decimals an amount column holds (Decimal(13, 3), prisma/schema/). */
const STORED_DECIMALS = 3;

export function requireCurrency(value: string): string {
  if (!CURRENCY.test(value)) throw new DomainError('BAD_USER_INPUT', 'currency must be an ISO 4217 code such as EUR', { field: 'currency' });
  if (exponentOf(value) > STORED_DECIMALS) {
    throw new DomainError('BAD_USER_INPUT', `currency ${value} has ${exponentOf(value)} decimals; the shop stores amounts with at most ${STORED_DECIMALS}`, { field: 'currency' });
  }
  return value;
}

/**
 * A non-negative amount given in a currency, with at most as many decimals as the currency has
 * (none for JPY, 3 for KWD): BAD_USER_INPUT naming the field and the currency otherwise.
 */
export function requireAmount(field: string, value: string, currency: string): Money {
  if (!/^\d{1,10}(\.\d+)?$/.test(value) || !fitsCurrency(money(value), currency)) {
    const decimals = exponentOf(currency) === 0 ? 'no decimals' : `at most ${exponentOf(currency)} decimals`;
    throw new DomainError('BAD_USER_INPUT', `${field} must be an amount in ${currency} with ${decimals}, e.g. "${moneyString(money('19.9'), currency)}", not ${JSON.stringify(value)}`, {
      field,
    });
  }
  return money(value);
}

export function requirePrice(value: string, currency: string): string {
  return moneyString(requireAmount('price', value, currency), currency);
}

export const DESCRIPTION_MAX_LENGTH = 10_000;

export function requireDescription(value: string): string {
  if (value.length > DESCRIPTION_MAX_LENGTH) throw new DomainError('BAD_USER_INPUT', `description must be at most ${DESCRIPTION_MAX_LENGTH} characters`, { field: 'description' });
  return value;
}
