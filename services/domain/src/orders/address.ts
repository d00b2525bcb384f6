import { DomainError } from '../kernel/index.ts';

export interface Address {
  readonly name: string;
  readonly line1: string;
  readonly line2?: string;
  readonly postalCode: string;
  readonly city: string;
  /** ISO 3166-1 alpha-2, e.g. DE. */
  readonly countryCode: string;
}

const LIMITS: Record<keyof Address, number> = { name: 200, line1: 200, line2: 200, postalCode: 20, city: 100, countryCode: 2 };

/** A trimmed copy, or BAD_USER_INPUT naming the field (e.g. shippingAddress.countryCode). */
export function validAddress(field: string, address: Address): Address {
  const clean: Record<string, string> = {};
  for (const [key, max] of Object.entries(LIMITS) as [keyof Address, number][]) {
    const value = (address[key] ?? '').trim();
    if (value.length === 0 && key !== 'line2')
      throw new DomainError('BAD_USER_INPUT', `${field}.${key} must not be empty`, { field: `${field}.${key}` });
    if (value.length > max)
      throw new DomainError('BAD_USER_INPUT', `${field}.${key} must be at most ${max} characters`, { field: `${field}.${key}` });
    if (value.length > 0) clean[key] = value;
  }
  if (!/^[A-Z]{2}$/.test(clean.countryCode ?? '')) {
    throw new DomainError('BAD_USER_INPUT', `${field}.countryCode must be two capital letters (ISO 3166-1), e.g. DE`, {
      field: `${field}.countryCode`,
    });
  }
  return clean as unknown as Address;
}
