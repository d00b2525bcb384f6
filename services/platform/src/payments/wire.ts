// The HTTP wire between the HTTP gateway adapter and the test gateway: paths, the key header and the error body.
import type { PermanentErrorCode } from './gateway.ts';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

export const PATHS = {
  authorize: '/v1/authorizations',
  capture: (authorizationId: string) => `/v1/authorizations/${encodeURIComponent(authorizationId)}/capture`,
  void: (authorizationId: string) => `/v1/authorizations/${encodeURIComponent(authorizationId)}/void`,
  refund: (authorizationId: string) => `/v1/authorizations/${encodeURIComponent(authorizationId)}/refunds`,
  operation: (idempotencyKey: string) => `/v1/operations/${encodeURIComponent(idempotencyKey)}`,
} as const;

/** The body of every answer that is not an operation. */
export interface WireError {
  readonly error: { readonly code: PermanentErrorCode | 'server_error' | 'not_found'; readonly message: string };
}

export const HTTP_STATUS_OF: Record<PermanentErrorCode, number> = {
  authentication_failed: 401,
  invalid_request: 400,
  idempotency_conflict: 409,
  authorization_not_found: 404,
  authorization_requires_action: 422,
  authorization_declined: 422,
  authorization_voided: 422,
  authorization_expired: 422,
  authorization_captured: 422,
  amount_exceeds_authorized: 422,
  amount_exceeds_captured: 422,
  currency_mismatch: 422,
};
