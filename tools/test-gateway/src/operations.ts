// What the test gateway does with an authorize, capture, void or refund: the rules of a card
// authorization (the states and amounts a real gateway enforces), and what a fault changes.
import { createHash } from 'node:crypto';
import type { GatewayOperation, Money, OperationKind, PermanentErrorCode } from '@shop/platform';
import type { Fault } from './faults.ts';
import { insertAuthorization, insertOperation, updateAuthorization, type Authorization, type Db, type OperationRow } from './store.ts';

/** How long an authorization can be captured: Stripe's 7 days for a customer-initiated card payment. */
const AUTHORIZATION_DAYS = 7;
const DAY_MS = 86_400_000;

export type OperationParams =
  | { readonly kind: 'authorize'; readonly amount: Money; readonly cardToken: string }
  | { readonly kind: 'capture'; readonly authorizationId: string; readonly amount: Money }
  | { readonly kind: 'void'; readonly authorizationId: string }
  | { readonly kind: 'refund'; readonly authorizationId: string; readonly amount: Money };

/** A request the gateway refuses without recording an operation. */
export class Refusal extends Error {
  readonly code: PermanentErrorCode;

  constructor(code: PermanentErrorCode, message: string) {
    super(message);
    this.name = 'Refusal';
    this.code = code;
  }
}

/** What identifies the request behind an idempotency key: the same key with another fingerprint is a conflict. */
export function fingerprintOf(params: OperationParams): string {
  return createHash('sha256').update(JSON.stringify(params)).digest('hex');
}

const ID_PREFIX: Record<OperationKind, string> = { authorize: 'auth', capture: 'cap', void: 'void', refund: 're' };

function operationIdOf(kind: OperationKind, idempotencyKey: string): string {
  return `${ID_PREFIX[kind]}_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 16)}`;
}

interface Execution {
  readonly idempotencyKey: string;
  readonly fingerprint: string;
  readonly now: Date;
  readonly fault: Fault | undefined;
}

/** Records the operation and its effect on the authorization (locked by the caller), or throws a Refusal. */
export async function execute(
  db: Db,
  params: OperationParams,
  authorization: Authorization | undefined,
  run: Execution,
): Promise<OperationRow> {
  if (params.kind === 'authorize') return authorize(db, params, run);
  if (authorization === undefined) throw new Refusal('authorization_not_found', `no authorization ${params.authorizationId}`);
  const outcome = params.kind === 'void' ? voidOf(authorization, run.now) : moneyMove(params, authorization, run);
  if (outcome.changed !== undefined) await updateAuthorization(db, outcome.changed);
  const operation: OperationRow = {
    ...base(params.kind, authorization.id, outcome.amount, run),
    status: outcome.status,
    declineCode: outcome.status === 'declined' ? 'card_declined' : null,
    settlesAt: run.fault?.kind === 'refund_pending' ? new Date(run.now.getTime() + run.fault.days * DAY_MS) : null,
  };
  await insertOperation(db, operation);
  return operation;
}

async function authorize(db: Db, params: Extract<OperationParams, { kind: 'authorize' }>, run: Execution): Promise<OperationRow> {
  const id = operationIdOf('authorize', run.idempotencyKey);
  const status = run.fault?.kind === 'decline' ? 'declined' : run.fault?.kind === 'requires_action' ? 'requires_action' : 'approved';
  const authorization: Authorization = {
    id,
    cardToken: params.cardToken,
    currency: params.amount.currency,
    authorizedMinor: params.amount.amountMinor,
    capturedMinor: 0,
    refundedMinor: 0,
    state: status === 'approved' ? 'authorized' : status,
    expiresAt: new Date(run.now.getTime() + AUTHORIZATION_DAYS * DAY_MS),
  };
  await insertAuthorization(db, authorization, run.now);
  const operation: OperationRow = {
    ...base('authorize', id, params.amount, run),
    status,
    declineCode: status === 'declined' ? 'card_declined' : null,
    settlesAt: null,
  };
  await insertOperation(db, operation);
  return operation;
}

function base(kind: OperationKind, authorizationId: string, amount: Money, run: Execution) {
  return {
    id: operationIdOf(kind, run.idempotencyKey),
    kind,
    idempotencyKey: run.idempotencyKey,
    fingerprint: run.fingerprint,
    authorizationId,
    amount,
    createdAt: run.now,
  };
}

interface Outcome {
  readonly status: 'approved' | 'declined' | 'pending';
  readonly amount: Money;
  readonly changed?: Authorization;
}

function refuseUnusable(authorization: Authorization): void {
  if (authorization.state === 'declined') throw new Refusal('authorization_declined', `authorization ${authorization.id} was declined`);
  if (authorization.state === 'requires_action')
    throw new Refusal('authorization_requires_action', `authorization ${authorization.id} awaits the customer's action`);
  if (authorization.state === 'voided') throw new Refusal('authorization_voided', `authorization ${authorization.id} was voided`);
}

function voidOf(authorization: Authorization, now: Date): Outcome {
  refuseUnusable(authorization);
  if (authorization.capturedMinor > 0)
    throw new Refusal('authorization_captured', `authorization ${authorization.id} was captured; refund it instead`);
  if (now >= authorization.expiresAt)
    throw new Refusal('authorization_expired', `authorization ${authorization.id} expired at ${authorization.expiresAt.toISOString()}`);
  const amount = { amountMinor: authorization.authorizedMinor, currency: authorization.currency };
  return { status: 'approved', amount, changed: { ...authorization, state: 'voided' } };
}

function moneyMove(
  params: Extract<OperationParams, { kind: 'capture' | 'refund' }>,
  authorization: Authorization,
  run: Execution,
): Outcome {
  const { amount } = params;
  if (amount.currency !== authorization.currency) {
    throw new Refusal('currency_mismatch', `authorization ${authorization.id} is in ${authorization.currency}, not ${amount.currency}`);
  }
  if (params.kind === 'capture') {
    refuseUnusable(authorization);
    if (run.now >= authorization.expiresAt)
      throw new Refusal('authorization_expired', `authorization ${authorization.id} expired at ${authorization.expiresAt.toISOString()}`);
    const left = authorization.authorizedMinor - authorization.capturedMinor;
    if (amount.amountMinor > left)
      throw new Refusal('amount_exceeds_authorized', `${amount.amountMinor} exceeds the ${left} left to capture on ${authorization.id}`);
    if (run.fault?.kind === 'decline') return { status: 'declined', amount };
    return { status: 'approved', amount, changed: { ...authorization, capturedMinor: authorization.capturedMinor + amount.amountMinor } };
  }
  // A refund is owed whatever became of the authorization since its capture: only the captured amount bounds it.
  const left = authorization.capturedMinor - authorization.refundedMinor;
  if (amount.amountMinor > left)
    throw new Refusal(
      'amount_exceeds_captured',
      `${amount.amountMinor} exceeds the ${left} captured and not refunded on ${authorization.id}`,
    );
  if (run.fault?.kind === 'decline') return { status: 'declined', amount };
  // A pending refund holds its amount already, so two refunds never promise more than was captured.
  const changed = { ...authorization, refundedMinor: authorization.refundedMinor + amount.amountMinor };
  return { status: run.fault?.kind === 'refund_pending' ? 'pending' : 'approved', amount, changed };
}

/** The operation as first answered, which a replay of its idempotency key answers again. */
export function firstAnswer(operation: OperationRow, actionUrl: string): GatewayOperation {
  const fields = {
    id: operation.id,
    kind: operation.kind,
    idempotencyKey: operation.idempotencyKey,
    authorizationId: operation.authorizationId,
    amount: operation.amount,
    createdAt: operation.createdAt.toISOString(),
  };
  switch (operation.status) {
    case 'approved':
      return { ...fields, status: 'approved' };
    case 'declined':
      return { ...fields, status: 'declined', declineCode: recorded(operation.declineCode, operation) };
    case 'pending':
      return { ...fields, status: 'pending', settlesAt: recorded(operation.settlesAt, operation).toISOString() };
    case 'requires_action':
      return { ...fields, status: 'requires_action', actionUrl };
  }
}

/** The operation as it stands at `now`: a pending refund settles, an authorization whose action was completed is approved. */
export function currentAnswer(
  operation: OperationRow,
  authorizationState: Authorization['state'],
  now: Date,
  actionUrl: string,
): GatewayOperation {
  const settled = operation.status === 'pending' && operation.settlesAt !== null && operation.settlesAt <= now;
  const actionDone = operation.status === 'requires_action' && authorizationState === 'authorized';
  return firstAnswer(settled || actionDone ? { ...operation, status: 'approved' } : operation, actionUrl);
}

/** A column the table's CHECK constraints fill for the operation's status. */
function recorded<T>(value: T | null, operation: OperationRow): T {
  if (value === null) throw new Error(`operation ${operation.id} is ${operation.status} without the column that status needs`);
  return value;
}
