// The PaymentGateway over HTTP, speaking wire.ts (as the test gateway of tools/test-gateway does).
import type { GatewayCredentials } from './gateway-credentials.ts';
import {
  isPermanentErrorCode,
  type AuthorizeRequest,
  type CaptureRequest,
  type GatewayAnswer,
  type GatewayError,
  type GatewayLookup,
  type GatewayOperation,
  type PaymentGateway,
  type RefundRequest,
  type VoidRequest,
} from './gateway.ts';
import { IDEMPOTENCY_KEY_HEADER, PATHS, type WireError } from './wire.ts';

export interface HttpGatewayOptions {
  /** e.g. `http://127.0.0.1:4010` */
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  /** How long a call may take before it is answered as a retryable `timeout`; 10 s by default. */
  readonly timeoutMs?: number;
}

const OPERATION_STATUSES: ReadonlySet<string> = new Set(['approved', 'declined', 'pending', 'requires_action']);

export class HttpPaymentGateway implements PaymentGateway {
  readonly #options: HttpGatewayOptions;

  constructor(options: HttpGatewayOptions) {
    this.#options = options;
  }

  authorize({ idempotencyKey, amount, cardToken }: AuthorizeRequest): Promise<GatewayAnswer> {
    return this.#operation(PATHS.authorize, idempotencyKey, { amount, cardToken });
  }

  capture({ idempotencyKey, authorizationId, amount }: CaptureRequest): Promise<GatewayAnswer> {
    return this.#operation(PATHS.capture(authorizationId), idempotencyKey, { amount });
  }

  void({ idempotencyKey, authorizationId }: VoidRequest): Promise<GatewayAnswer> {
    return this.#operation(PATHS.void(authorizationId), idempotencyKey, {});
  }

  refund({ idempotencyKey, authorizationId, amount }: RefundRequest): Promise<GatewayAnswer> {
    return this.#operation(PATHS.refund(authorizationId), idempotencyKey, { amount });
  }

  async lookUp(idempotencyKey: string): Promise<GatewayLookup> {
    const answer = await this.#call('GET', PATHS.operation(idempotencyKey));
    if ('error' in answer) return answer.status === 404 && answer.error.code === 'not_found' ? { status: 'not_found' } : errorOf(answer);
    return answer.operation;
  }

  async #operation(path: string, idempotencyKey: string, body: object): Promise<GatewayAnswer> {
    const answer = await this.#call('POST', path, { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey }, body);
    return 'error' in answer ? errorOf(answer) : answer.operation;
  }

  /** A kept key the gateway refuses (set anew since it was read) is read again, and the call sent once more with it. */
  async #call(method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: object): Promise<CallResult> {
    const { credentials } = this.#options;
    const result = await this.#send(await credentials.apiKey(), method, path, headers, body);
    if (credentials.forget === undefined || !('error' in result) || result.error.code !== 'authentication_failed') return result;
    credentials.forget();
    return this.#send(await credentials.apiKey(), method, path, headers, body);
  }

  async #send(
    apiKey: string,
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: object | undefined,
  ): Promise<CallResult> {
    const { baseUrl, timeoutMs = 10_000 } = this.#options;
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL(path, baseUrl), {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError')
        return { status: 0, error: { code: 'timeout', message: `no answer from ${baseUrl} within ${timeoutMs} ms` } };
      return { status: 0, error: { code: 'unavailable', message: `${baseUrl} could not be reached: ${causeOf(error)}` } };
    }
    return resultOf(response.status, text);
  }
}

type CallResult =
  | { readonly operation: GatewayOperation }
  | { readonly status: number; readonly error: { readonly code: string; readonly message: string } };

function resultOf(status: number, text: string): CallResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { status, error: { code: 'unexpected_answer', message: `a body that is not JSON: ${text.slice(0, 200)}` } };
  }
  if (status === 200 && isOperation(body)) return { operation: body };
  if (isWireError(body)) return { status, error: body.error };
  return { status, error: { code: 'unexpected_answer', message: `an unexpected body: ${text.slice(0, 200)}` } };
}

function errorOf({ status, error }: { status: number; error: { code: string; message: string } }): GatewayError {
  if (error.code === 'timeout' || error.code === 'unavailable')
    return { status: 'error', retryable: true, code: error.code, message: error.message };
  if (status >= 500) return { status: 'error', retryable: true, code: 'server_error', message: `HTTP ${status}: ${error.message}` };
  if (isPermanentErrorCode(error.code)) return { status: 'error', retryable: false, code: error.code, message: error.message };
  // A refusal this adapter does not know (a wrong base URL, a newer gateway): sending it again would be refused again.
  return { status: 'error', retryable: false, code: 'invalid_request', message: `HTTP ${status} (${error.code}): ${error.message}` };
}

function isOperation(body: unknown): body is GatewayOperation {
  return (
    typeof body === 'object' && body !== null && 'status' in body && typeof body.status === 'string' && OPERATION_STATUSES.has(body.status)
  );
}

function isWireError(body: unknown): body is WireError {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}

function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}
