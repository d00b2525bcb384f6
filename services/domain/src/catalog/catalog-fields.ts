import { DomainError } from '../errors/domain-error.ts';
import { money } from '../money.ts';

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

export function requireCurrency(value: string): string {
  if (!CURRENCY.test(value)) throw new DomainError('BAD_USER_INPUT', 'currency must be an ISO 4217 code such as EUR', { field: 'currency' });
  return value;
}

export function requirePrice(value: string): string {
  if (!/^\d{1,10}(\.\d{1,2})?$/.test(value)) throw new DomainError('BAD_USER_INPUT', 'price must be a non-negative amount with at most two decimals, e.g. "19.90"', { field: 'price' });
  return money(value).toFixed(2);
}

export const DESCRIPTION_MAX_LENGTH = 10_000;

export function requireDescription(value: string): string {
  if (value.length > DESCRIPTION_MAX_LENGTH) throw new DomainError('BAD_USER_INPUT', `description must be at most ${DESCRIPTION_MAX_LENGTH} characters`, { field: 'description' });
  return value;
}
