/**
 * The error codes clients branch on; the api maps each to GraphQL `extensions.code` and an HTTP status.
 * UNAVAILABLE: a service the operation needs (the payment gateway) did not answer; nothing was changed and
 * the same request may be sent again.
 */
export type DomainErrorCode = 'BAD_USER_INPUT' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT' | 'UNAVAILABLE';

/** A rule of the domain refused the operation; the message says what is wrong in the caller's terms. */
export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: DomainErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

/** NOT_FOUND naming the argument (`field`) that held the missing id. */
export function notFound(what: string, id: bigint | string, field: string): DomainError {
  return new DomainError('NOT_FOUND', `${what} ${id} does not exist`, { field });
}
