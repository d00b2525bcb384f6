// The test gateway: a payment gateway of our own over HTTP (the wire of the platform's payments/wire.ts),
// its state in PostgreSQL, with control routes under /test/ to script faults, set its clock and read its
// logs. See docs/money.md.
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { IDEMPOTENCY_KEY_HEADER, type Money, type PermanentErrorCode, type WireError } from '@shop/platform';
import { operationsOfRule, type FaultRule } from './faults.ts';
import { HTTP_STATUS_OF } from './http-status.ts';
import { currentAnswer, execute, fingerprintOf, firstAnswer, Refusal, type OperationParams } from './operations.ts';
import { migrateTestGatewaySchema } from './schema.ts';
import {
  authorizationStateOf,
  clockNow,
  findOperation,
  insertFault,
  listOperations,
  listRequests,
  lockAuthorization,
  logRequest,
  setClock,
  takeFault,
  type OperationRow,
} from './store.ts';

export interface TestGatewayOptions {
  /** The database its tables (schema `test_gateway`) are created in, if missing, and kept in. */
  readonly databaseUrl: string;
  /** The one API key it accepts, as `Authorization: Bearer <key>`. */
  readonly apiKey: string;
  readonly host?: string;
  /** 0 (the default) takes a free port. */
  readonly port?: number;
  readonly log?: boolean;
}

export interface RunningTestGateway {
  /** e.g. `http://127.0.0.1:40123` */
  readonly url: string;
  /** Stops answering, drops requests it is holding (timeouts) and closes its connections to PostgreSQL. */
  close(): Promise<void>;
}

export async function startTestGateway(options: TestGatewayOptions): Promise<RunningTestGateway> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
  try {
    await migrateTestGatewaySchema(pool);
    const app = testGatewayServer(pool, options);
    const url = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
    return {
      url,
      async close() {
        await app.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

const MONEY = {
  type: 'object',
  required: ['amountMinor', 'currency'],
  additionalProperties: false,
  properties: {
    amountMinor: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
  },
} as const;

const KEY_HEADER = {
  type: 'object',
  required: [IDEMPOTENCY_KEY_HEADER],
  properties: { [IDEMPOTENCY_KEY_HEADER]: { type: 'string', minLength: 1, maxLength: 255 } },
} as const;

const AUTHORIZATION_ID = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } } as const;

type Performed =
  | { readonly answer: 'operation'; readonly operation: OperationRow }
  | { readonly answer: 'refusal'; readonly code: PermanentErrorCode; readonly message: string }
  /** The operation was recorded and its answer is to be lost (commit_then_error). */
  | { readonly answer: 'lost' }
  /** No answer is to be given (timeout, commit_then_timeout). */
  | { readonly answer: 'none' };

function testGatewayServer(pool: pg.Pool, options: TestGatewayOptions): FastifyInstance {
  // Held requests (timeouts) would keep close() waiting: they are dropped instead, as a crashed gateway would.
  const app = Fastify({ logger: options.log ?? false, forceCloseConnections: true });
  pool.on('error', (error) => app.log.error({ err: error }, 'idle PostgreSQL connection failed'));

  const expectedKey = digest(options.apiKey);
  app.addHook('onRequest', async (request, reply) => {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expectedKey)) {
      return refuse(reply, 'authentication_failed', 'the API key is missing or wrong: send Authorization: Bearer <key>');
    }
  });

  app.setErrorHandler((error: { validation?: unknown; statusCode?: number; message: string }, request, reply) => {
    // Schema failures, and Fastify's own refusals (a body that is not JSON, too large, ...).
    if (error.validation !== undefined || (error.statusCode ?? 500) < 500) return refuse(reply, 'invalid_request', error.message);
    request.log.error({ err: error }, 'test gateway failed');
    return reply.code(500).send(wireError('server_error', error.message));
  });

  const operationRoute = (params: (request: FastifyRequest) => OperationParams) => async (request: FastifyRequest, reply: FastifyReply) => {
    const performed = await perform(pool, params(request), request.headers[IDEMPOTENCY_KEY_HEADER] as string);
    switch (performed.answer) {
      case 'operation':
        return reply.send(firstAnswer(performed.operation, actionUrlOf(request, performed.operation.authorizationId)));
      case 'refusal':
        return refuse(reply, performed.code, performed.message);
      case 'lost':
        return reply
          .code(500)
          .send(wireError('server_error', 'the operation was recorded but its answer was lost (scripted commit_then_error)'));
      case 'none':
        reply.hijack();
        await new Promise((resolve) => reply.raw.once('close', resolve));
        return reply;
    }
  };

  const withAmount = { type: 'object', required: ['amount'], properties: { amount: MONEY } } as const;
  // The route schemas have validated the bodies these read. The amount is rebuilt so that its
  // fingerprint does not depend on the order the client wrote its fields in.
  const amountOf = (request: FastifyRequest): Money => {
    const { amountMinor, currency } = (request.body as { amount: Money }).amount;
    return { amountMinor, currency };
  };
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  app.post(
    '/v1/authorizations',
    {
      schema: {
        headers: KEY_HEADER,
        body: {
          type: 'object',
          required: ['amount', 'cardToken'],
          properties: { amount: MONEY, cardToken: { type: 'string', minLength: 1 } },
        },
      },
    },
    operationRoute((request) => ({
      kind: 'authorize',
      amount: amountOf(request),
      cardToken: (request.body as { cardToken: string }).cardToken,
    })),
  );
  app.post(
    '/v1/authorizations/:id/capture',
    { schema: { headers: KEY_HEADER, params: AUTHORIZATION_ID, body: withAmount } },
    operationRoute((request) => ({ kind: 'capture', authorizationId: idOf(request), amount: amountOf(request) })),
  );
  app.post(
    '/v1/authorizations/:id/void',
    { schema: { headers: KEY_HEADER, params: AUTHORIZATION_ID } },
    operationRoute((request) => ({ kind: 'void', authorizationId: idOf(request) })),
  );
  app.post(
    '/v1/authorizations/:id/refunds',
    { schema: { headers: KEY_HEADER, params: AUTHORIZATION_ID, body: withAmount } },
    operationRoute((request) => ({ kind: 'refund', authorizationId: idOf(request), amount: amountOf(request) })),
  );

  app.get<{ Params: { key: string } }>('/v1/operations/:key', async (request, reply) => {
    const operation = await findOperation(pool, request.params.key);
    if (operation === undefined)
      return reply.code(404).send(wireError('not_found', `no operation has the idempotency key ${request.params.key}`));
    const [state, now] = [await authorizationStateOf(pool, operation.authorizationId), await clockNow(pool)];
    return reply.send(currentAnswer(operation, state, now, actionUrlOf(request, operation.authorizationId)));
  });

  registerControlRoutes(app, pool);
  return app;
}

function registerControlRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.put<{ Body: { now: string } }>(
    '/test/clock',
    { schema: { body: { type: 'object', required: ['now'], properties: { now: { type: 'string', minLength: 1 } } } } },
    async (request, reply) => {
      const now = new Date(request.body.now);
      if (Number.isNaN(now.getTime())) return refuse(reply, 'invalid_request', `now is not a time: ${request.body.now}`);
      await setClock(pool, now);
      return reply.code(204).send();
    },
  );

  app.post<{ Body: FaultRule }>(
    '/test/faults',
    {
      schema: {
        body: {
          type: 'object',
          required: ['fault'],
          additionalProperties: false,
          properties: {
            fault: {
              type: 'object',
              required: ['kind'],
              additionalProperties: false,
              properties: {
                kind: { enum: ['decline', 'timeout', 'commit_then_error', 'commit_then_timeout', 'refund_pending', 'requires_action'] },
                days: { type: 'number' },
              },
            },
            operation: { enum: ['authorize', 'capture', 'void', 'refund'] },
            cardToken: { type: 'string', minLength: 1 },
            idempotencyKey: { type: 'string', minLength: 1 },
            times: { anyOf: [{ type: 'integer', minimum: 1 }, { const: 'always' }] },
          },
        },
      },
    },
    async (request, reply) => {
      const operations = operationsOfRule(request.body);
      if (typeof operations === 'string') return refuse(reply, 'invalid_request', operations);
      return reply.code(201).send({ id: await insertFault(pool, request.body, operations) });
    },
  );

  app.get('/test/operations', async (request) => {
    const now = await clockNow(pool);
    const rows = await listOperations(pool);
    return {
      operations: rows.map(({ operation, authorizationState }) =>
        currentAnswer(operation, authorizationState, now, actionUrlOf(request, operation.authorizationId)),
      ),
    };
  });

  app.get('/test/requests', async () => ({ requests: await listRequests(pool) }));

  app.post<{ Params: { id: string } }>(
    '/test/authorizations/:id/complete-action',
    { schema: { params: AUTHORIZATION_ID } },
    async (request, reply) => {
      const { rowCount } = await pool.query(
        `UPDATE test_gateway.authorizations SET state = 'authorized' WHERE id = $1 AND state = 'requires_action'`,
        [request.params.id],
      );
      if (rowCount === 0) return refuse(reply, 'invalid_request', `authorization ${request.params.id} does not await an action`);
      return reply.code(204).send();
    },
  );
}

/** Runs one operation request: replays or refuses a known key, else takes a scripted fault and executes. */
async function perform(pool: pg.Pool, params: OperationParams, idempotencyKey: string): Promise<Performed> {
  const fingerprint = fingerprintOf(params);
  const authorizationId = params.kind === 'authorize' ? null : params.authorizationId;
  const logged = { kind: params.kind, idempotencyKey, authorizationId };
  try {
    return await inTransaction(pool, async (db) => {
      // Requests with one key queue here: of two concurrent ones, the second replays the first.
      await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [idempotencyKey]);
      const now = await clockNow(db);
      const existing = await findOperation(db, idempotencyKey);
      if (existing !== undefined) {
        const same = existing.fingerprint === fingerprint;
        await logRequest(
          db,
          {
            ...logged,
            outcome: same ? 'replayed' : 'conflict',
            fault: null,
            operationId: existing.id,
            errorCode: same ? null : 'idempotency_conflict',
          },
          now,
        );
        if (same) return { answer: 'operation', operation: existing };
        return {
          answer: 'refusal',
          code: 'idempotency_conflict',
          message: `the idempotency key ${idempotencyKey} was used for another request (${existing.kind} ${existing.id})`,
        };
      }
      const authorization = authorizationId === null ? undefined : await lockAuthorization(db, authorizationId);
      const cardToken = params.kind === 'authorize' ? params.cardToken : authorization?.cardToken;
      const fault = cardToken === undefined ? undefined : await takeFault(db, { kind: params.kind, cardToken, idempotencyKey });
      if (fault?.kind === 'timeout') {
        await logRequest(db, { ...logged, outcome: 'dropped', fault: 'timeout', operationId: null, errorCode: null }, now);
        return { answer: 'none' };
      }
      const operation = await execute(db, params, authorization, { idempotencyKey, fingerprint, now, fault });
      await logRequest(db, { ...logged, outcome: 'executed', fault: fault?.kind ?? null, operationId: operation.id, errorCode: null }, now);
      if (fault?.kind === 'commit_then_error') return { answer: 'lost' };
      if (fault?.kind === 'commit_then_timeout') return { answer: 'none' };
      return { answer: 'operation', operation };
    });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    await logRequest(pool, { ...logged, outcome: 'refused', fault: null, operationId: null, errorCode: error.code }, await clockNow(pool));
    return { answer: 'refusal', code: error.code, message: error.message };
  }
}

async function inTransaction<T>(pool: pg.Pool, work: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

function actionUrlOf(request: FastifyRequest, authorizationId: string): string {
  return `${request.protocol}://${request.host}/test/authorizations/${encodeURIComponent(authorizationId)}/complete-action`;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function wireError(code: WireError['error']['code'], message: string): WireError {
  return { error: { code, message } };
}

function refuse(reply: FastifyReply, code: PermanentErrorCode, message: string): FastifyReply {
  return reply.code(HTTP_STATUS_OF[code]).send(wireError(code, message));
}
