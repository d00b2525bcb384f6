// The HTTP wire between the HTTP gateway adapter and a gateway that speaks it (the test gateway,
// tools/test-gateway): paths, the key header and the error body.
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
