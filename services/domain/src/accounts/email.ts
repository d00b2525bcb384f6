import { DomainError, LIMITS } from '../kernel/index.ts';

// The `email` format of the event schemas (ajv-formats, full mode): an address accepted here always
// makes a schema-valid event.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** Trimmed and lower-cased, as emails are stored and compared; throws BAD_USER_INPUT when it is not an address. */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > LIMITS.email.max)
    throw new DomainError('BAD_USER_INPUT', `email must be at most ${LIMITS.email.max} characters`, { field: 'email' });
  if (!EMAIL.test(email)) throw new DomainError('BAD_USER_INPUT', 'email is not a valid address', { field: 'email' });
  return email;
}
