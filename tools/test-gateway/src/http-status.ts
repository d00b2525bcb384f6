// The HTTP status the test gateway answers each permanent refusal with (the adapter reads the code in the body).
import type { PermanentErrorCode } from '@shop/platform';

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
