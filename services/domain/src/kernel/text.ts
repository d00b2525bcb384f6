import { DomainError } from './domain-error.ts';

/** Trimmed; null when absent or blank; BAD_USER_INPUT naming the field when longer than `max`. */
export function optionalText(field: string, value: string | null | undefined, max: number): string | null {
  const trimmed = value?.trim() ?? '';
  if (trimmed.length > max) throw new DomainError('BAD_USER_INPUT', `${field} must be at most ${max} characters`, { field });
  return trimmed === '' ? null : trimmed;
}

/** Trimmed; BAD_USER_INPUT naming the field when blank or longer than `max`. */
export function requiredText(field: string, value: string, max: number): string {
  const text = optionalText(field, value, max);
  if (text === null) throw new DomainError('BAD_USER_INPUT', `${field} must not be empty`, { field });
  return text;
}
