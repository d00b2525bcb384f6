import { DomainError } from '../kernel/index.ts';

export const EMAIL_MAX_LENGTH = 320;

// The `email` format of the event schemas (ajv-formats, full mode): an address accepted here always
// makes a schema-valid event.
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** Trimmed and lower-cased, as emails are stored and compared; throws BAD_USER_INPUT when it is not an address. */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > EMAIL_MAX_LENGTH) {
    throw new DomainError('BAD_USER_INPUT', `email must be at most ${EMAIL_MAX_LENGTH} characters`, { field: 'email' });
  }
  if (!EMAIL.test(email)) throw new DomainError('BAD_USER_INPUT', 'email is not a valid address', { field: 'email' });
  return email;
}
