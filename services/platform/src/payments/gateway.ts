// The one interface every payment gateway is used through: see docs/money.md.

/**
 * An amount in integer minor units of an ISO 4217 currency (1999 EUR is 19.99 EUR; 500 JPY is 500 JPY):
 * what gateways take, and exact under addition. Decimal strings are for people (GraphQL), not for gateways.
 */
export interface Money {
  readonly amountMinor: number;
  readonly currency: string;
}

export type OperationKind = 'authorize' | 'capture' | 'void' | 'refund';

/** Why a gateway refused the card or the request, when the request itself was well formed. */
export type DeclineCode = 'card_declined';

interface OperationFields {
  /** The gateway's id of this operation (an authorization's id for `authorize`). */
  readonly id: string;
  readonly kind: OperationKind;
  readonly idempotencyKey: string;
  readonly authorizationId: string;
  readonly amount: Money;
  /** ISO time on the gateway's clock. */
  readonly createdAt: string;
}

/** An operation the gateway recorded: replayed as it was first answered for the same idempotency key. */
export type GatewayOperation =
  | (OperationFields & { readonly status: 'approved' })
  | (OperationFields & { readonly status: 'declined'; readonly declineCode: DeclineCode })
  /** A refund the gateway accepted that settles later (bank transfers, some card networks). */
  | (OperationFields & { readonly status: 'pending'; readonly settlesAt: string })
  /** An authorization the customer must complete (3-D Secure) before it can be captured. */
  | (OperationFields & { readonly status: 'requires_action'; readonly actionUrl: string });

/** Errors that may succeed when the same request is sent again with the same idempotency key. */
export const RETRYABLE_ERROR_CODES = ['timeout', 'unavailable', 'server_error'] as const;

/** Errors that sending the same request again cannot fix. */
export const PERMANENT_ERROR_CODES = [
  'authentication_failed',
  'invalid_request',
  'idempotency_conflict',
  'authorization_not_found',
  'authorization_requires_action',
  'authorization_declined',
  'authorization_voided',
  'authorization_expired',
  'authorization_captured',
  'amount_exceeds_authorized',
  'amount_exceeds_captured',
  'currency_mismatch',
] as const;

export type RetryableErrorCode = (typeof RETRYABLE_ERROR_CODES)[number];
export type PermanentErrorCode = (typeof PERMANENT_ERROR_CODES)[number];

/** The gateway did not record an operation, or its answer was lost; `retryable` says whether the same request may succeed. */
export type GatewayError =
  | { readonly status: 'error'; readonly retryable: true; readonly code: RetryableErrorCode; readonly message: string }
  | { readonly status: 'error'; readonly retryable: false; readonly code: PermanentErrorCode; readonly message: string };

export type GatewayAnswer = GatewayOperation | GatewayError;

/** What a look-up by idempotency key finds: the operation as it stands now (a pending refund may have settled). */
export type GatewayLookup = GatewayOperation | { readonly status: 'not_found' } | GatewayError;

export interface AuthorizeRequest {
  readonly idempotencyKey: string;
  readonly amount: Money;
  /** The card as the gateway's tokenizer gave it: the platform never sees card numbers. */
  readonly cardToken: string;
}

export interface CaptureRequest {
  readonly idempotencyKey: string;
  readonly authorizationId: string;
  readonly amount: Money;
}

export interface VoidRequest {
  readonly idempotencyKey: string;
  readonly authorizationId: string;
}

export interface RefundRequest {
  readonly idempotencyKey: string;
  readonly authorizationId: string;
  readonly amount: Money;
}

/**
 * A payment gateway. Every call carries an idempotency key: the same key with the same parameters
 * answers what the first call was answered, so a call whose answer was lost is sent again with its key.
 * Gateway outcomes are answers, never exceptions.
 */
export interface PaymentGateway {
  authorize(request: AuthorizeRequest): Promise<GatewayAnswer>;
  capture(request: CaptureRequest): Promise<GatewayAnswer>;
  void(request: VoidRequest): Promise<GatewayAnswer>;
  refund(request: RefundRequest): Promise<GatewayAnswer>;
  lookUp(idempotencyKey: string): Promise<GatewayLookup>;
}

export function isPermanentErrorCode(code: string): code is PermanentErrorCode {
  return (PERMANENT_ERROR_CODES as readonly string[]).includes(code);
}
