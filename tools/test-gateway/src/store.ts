// The test gateway's reads and writes of its tables (schema.ts), inside the caller's transaction.
import type pg from 'pg';
import type { DeclineCode, GatewayOperation, Money, OperationKind } from '@shop/platform';
import type { Fault, FaultKind, FaultRule } from './faults.ts';
import { SCHEMA } from './schema.ts';

/** The pool, or a client of it inside a transaction. */
export type Db = pg.Pool | pg.PoolClient;

export type AuthorizationState = 'authorized' | 'requires_action' | 'declined' | 'voided';

export interface Authorization {
  readonly id: string;
  readonly cardToken: string;
  readonly currency: string;
  readonly authorizedMinor: number;
  readonly capturedMinor: number;
  readonly refundedMinor: number;
  readonly state: AuthorizationState;
  readonly expiresAt: Date;
}

export interface OperationRow {
  readonly id: string;
  readonly kind: OperationKind;
  readonly idempotencyKey: string;
  readonly fingerprint: string;
  readonly authorizationId: string;
  readonly amount: Money;
  readonly status: GatewayOperation['status'];
  readonly declineCode: DeclineCode | null;
  readonly settlesAt: Date | null;
  readonly createdAt: Date;
}

export type RequestOutcome = 'executed' | 'replayed' | 'conflict' | 'refused' | 'dropped';

/** One request the gateway received, whatever became of it: the log tests assert on. */
export interface LoggedRequest {
  readonly kind: OperationKind;
  readonly idempotencyKey: string | null;
  readonly authorizationId: string | null;
  readonly outcome: RequestOutcome;
  readonly fault: FaultKind | null;
  readonly operationId: string | null;
  readonly errorCode: string | null;
  readonly receivedAt: string;
}

/** The gateway's clock: the time it was told, or PostgreSQL's when it was told none. */
export async function clockNow(db: Db): Promise<Date> {
  const { rows } = await db.query<{ now: Date }>(`SELECT coalesce((SELECT now FROM ${SCHEMA}.clock), now()) AS now`);
  return onlyRow(rows).now;
}

export async function setClock(db: Db, now: Date): Promise<void> {
  await db.query(`INSERT INTO ${SCHEMA}.clock (now) VALUES ($1) ON CONFLICT (single) DO UPDATE SET now = excluded.now`, [now]);
}

export async function lockAuthorization(db: Db, id: string): Promise<Authorization | undefined> {
  const { rows } = await db.query<AuthorizationDbRow>(`SELECT * FROM ${SCHEMA}.authorizations WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] && authorizationOf(rows[0]);
}

export async function insertAuthorization(db: Db, authorization: Authorization, createdAt: Date): Promise<void> {
  const { id, cardToken, currency, authorizedMinor, state, expiresAt } = authorization;
  await db.query(
    `INSERT INTO ${SCHEMA}.authorizations (id, card_token, currency, authorized_minor, state, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, cardToken, currency, authorizedMinor, state, expiresAt, createdAt],
  );
}

export async function updateAuthorization(db: Db, authorization: Authorization): Promise<void> {
  const { id, capturedMinor, refundedMinor, state } = authorization;
  await db.query(`UPDATE ${SCHEMA}.authorizations SET captured_minor = $2, refunded_minor = $3, state = $4 WHERE id = $1`, [
    id,
    capturedMinor,
    refundedMinor,
    state,
  ]);
}

export async function findOperation(db: Db, idempotencyKey: string): Promise<OperationRow | undefined> {
  const { rows } = await db.query<OperationDbRow>(`SELECT * FROM ${SCHEMA}.operations WHERE idempotency_key = $1`, [idempotencyKey]);
  return rows[0] && operationOf(rows[0]);
}

export async function insertOperation(db: Db, operation: OperationRow): Promise<void> {
  const { id, idempotencyKey, fingerprint, kind, authorizationId, amount, status, declineCode, settlesAt, createdAt } = operation;
  await db.query(
    `INSERT INTO ${SCHEMA}.operations (id, idempotency_key, fingerprint, kind, authorization_id, amount_minor, currency, status, decline_code, settles_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      id,
      idempotencyKey,
      fingerprint,
      kind,
      authorizationId,
      amount.amountMinor,
      amount.currency,
      status,
      declineCode,
      settlesAt,
      createdAt,
    ],
  );
}

/** Every operation in the order it was recorded, with the state of its authorization. */
export async function listOperations(db: Db): Promise<Array<{ operation: OperationRow; authorizationState: AuthorizationState }>> {
  const { rows } = await db.query<OperationDbRow & { authorization_state: AuthorizationState }>(
    `SELECT o.*, a.state AS authorization_state FROM ${SCHEMA}.operations o JOIN ${SCHEMA}.authorizations a ON a.id = o.authorization_id ORDER BY o.seq`,
  );
  return rows.map((row) => ({ operation: operationOf(row), authorizationState: row.authorization_state }));
}

export async function authorizationStateOf(db: Db, id: string): Promise<AuthorizationState> {
  const { rows } = await db.query<{ state: AuthorizationState }>(`SELECT state FROM ${SCHEMA}.authorizations WHERE id = $1`, [id]);
  return onlyRow(rows).state;
}

export async function insertFault(db: Db, rule: FaultRule, operations: readonly OperationKind[]): Promise<number> {
  const times = rule.times ?? 1;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO ${SCHEMA}.faults (operations, card_token, idempotency_key, fault, remaining) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [operations, rule.cardToken ?? null, rule.idempotencyKey ?? null, rule.fault, times === 'always' ? null : times],
  );
  return Number(onlyRow(rows).id);
}

/** The first fault rule matching the request, used up by one; rules are tried in the order they were added. */
export async function takeFault(
  db: Db,
  request: { kind: OperationKind; cardToken: string; idempotencyKey: string },
): Promise<Fault | undefined> {
  const { rows } = await db.query<{ id: string; fault: Fault; remaining: number | null }>(
    `SELECT id, fault, remaining FROM ${SCHEMA}.faults
      WHERE $1 = ANY (operations) AND coalesce(card_token = $2, true) AND coalesce(idempotency_key = $3, true)
      ORDER BY id LIMIT 1 FOR UPDATE`,
    [request.kind, request.cardToken, request.idempotencyKey],
  );
  const rule = rows[0];
  if (rule === undefined) return undefined;
  if (rule.remaining === 1) await db.query(`DELETE FROM ${SCHEMA}.faults WHERE id = $1`, [rule.id]);
  else if (rule.remaining !== null) await db.query(`UPDATE ${SCHEMA}.faults SET remaining = remaining - 1 WHERE id = $1`, [rule.id]);
  return rule.fault;
}

export async function logRequest(db: Db, request: Omit<LoggedRequest, 'receivedAt'>, receivedAt: Date): Promise<void> {
  const { kind, idempotencyKey, authorizationId, outcome, fault, operationId, errorCode } = request;
  await db.query(
    `INSERT INTO ${SCHEMA}.requests (kind, idempotency_key, authorization_id, outcome, fault, operation_id, error_code, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [kind, idempotencyKey, authorizationId, outcome, fault, operationId, errorCode, receivedAt],
  );
}

export async function listRequests(db: Db): Promise<LoggedRequest[]> {
  const { rows } = await db.query<RequestDbRow>(`SELECT * FROM ${SCHEMA}.requests ORDER BY id`);
  return rows.map((row) => ({
    kind: row.kind,
    idempotencyKey: row.idempotency_key,
    authorizationId: row.authorization_id,
    outcome: row.outcome,
    fault: row.fault,
    operationId: row.operation_id,
    errorCode: row.error_code,
    receivedAt: row.received_at.toISOString(),
  }));
}

function onlyRow<T>(rows: readonly T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('the query answered no row where it always answers one');
  return row;
}

interface AuthorizationDbRow {
  id: string;
  card_token: string;
  currency: string;
  authorized_minor: string;
  captured_minor: string;
  refunded_minor: string;
  state: AuthorizationState;
  expires_at: Date;
}

interface OperationDbRow {
  id: string;
  kind: OperationKind;
  idempotency_key: string;
  fingerprint: string;
  authorization_id: string;
  amount_minor: string;
  currency: string;
  status: GatewayOperation['status'];
  decline_code: DeclineCode | null;
  settles_at: Date | null;
  created_at: Date;
}

interface RequestDbRow {
  kind: OperationKind;
  idempotency_key: string | null;
  authorization_id: string | null;
  outcome: RequestOutcome;
  fault: FaultKind | null;
  operation_id: string | null;
  error_code: string | null;
  received_at: Date;
}

// bigint columns arrive as strings; amounts are kept within Number.MAX_SAFE_INTEGER on the way in.
function authorizationOf(row: AuthorizationDbRow): Authorization {
  return {
    id: row.id,
    cardToken: row.card_token,
    currency: row.currency,
    authorizedMinor: Number(row.authorized_minor),
    capturedMinor: Number(row.captured_minor),
    refundedMinor: Number(row.refunded_minor),
    state: row.state,
    expiresAt: row.expires_at,
  };
}

function operationOf(row: OperationDbRow): OperationRow {
  return {
    id: row.id,
    kind: row.kind,
    idempotencyKey: row.idempotency_key,
    fingerprint: row.fingerprint,
    authorizationId: row.authorization_id,
    amount: { amountMinor: Number(row.amount_minor), currency: row.currency },
    status: row.status,
    declineCode: row.decline_code,
    settlesAt: row.settles_at,
    createdAt: row.created_at,
  };
}
