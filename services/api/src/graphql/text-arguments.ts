import { DomainError } from '@shop/domain/kernel';

/** Trimmed; BAD_USER_INPUT naming the argument when longer than `max`; undefined when blank. */
export function optionalArgument(value: string | null | undefined, argument: string, max: number): string | undefined {
  const text = value?.trim() ?? '';
  if (text.length > max) throw new DomainError('BAD_USER_INPUT', `${argument} must be at most ${max} characters`, { field: argument });
  return text === '' ? undefined : text;
}
