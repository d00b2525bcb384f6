// The test gateway's own rules, through the platform's HTTP adapter: idempotency, the rules of an
// authorization, scripted faults, two servers on one database, and what it refuses on the wire.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { givenCredentials, HttpPaymentGateway, type GatewayOperation, type Money } from '@shop/platform';
import { startTestGateway } from '../src/index.ts';
import { API_KEY, eur, expectOperation, fresh, openGatewayUnderTest, type GatewayUnderTest } from './support/gateway.ts';

let t: GatewayUnderTest;
const T0 = new Date('2026-11-25T10:00:00.000Z');
const DAY_MS = 86_400_000;

beforeAll(async () => {
  t = await openGatewayUnderTest('test_gateway');
});
afterAll(async () => t?.close());
beforeEach(async () => t.control.setClock(T0));

async function authorized(amount: Money = eur(5000), cardToken = fresh('tok')) {
  return expectOperation(await t.gateway.authorize({ idempotencyKey: fresh('auth'), amount, cardToken }), 'approved');
}

async function captured(amount: Money = eur(5000), cardToken = fresh('tok')) {
  const authorization = await authorized(amount, cardToken);
  expectOperation(await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: authorization.id, amount }), 'approved');
  return authorization;
}

async function operationsOn(authorizationId: string, kind?: GatewayOperation['kind']) {
  return (await t.control.operations()).filter(
    (operation) => operation.authorizationId === authorizationId && (kind === undefined || operation.kind === kind),
  );
}

async function outcomesOf(idempotencyKey: string) {
  return (await t.control.requests())
    .filter((request) => request.idempotencyKey === idempotencyKey)
    .map(({ outcome, fault, errorCode }) => ({ outcome, fault, errorCode }));
}

describe('idempotency keys', () => {
  it('replays the first answer for the same key and parameters, and records one operation', async () => {
    const request = { idempotencyKey: fresh('auth'), amount: eur(1999), cardToken: fresh('tok') };
    const first = expectOperation(await t.gateway.authorize(request), 'approved');
    expect(first).toEqual({
      status: 'approved',
      id: first.id,
      kind: 'authorize',
      idempotencyKey: request.idempotencyKey,
      authorizationId: first.id,
      amount: { amountMinor: 1999, currency: 'EUR' },
      createdAt: T0.toISOString(),
    });
    expect(await t.gateway.authorize(request)).toEqual(first);
    expect(await operationsOn(first.id)).toEqual([first]);
    expect(await outcomesOf(request.idempotencyKey)).toEqual([
      { outcome: 'executed', fault: null, errorCode: null },
      { outcome: 'replayed', fault: null, errorCode: null },
    ]);
  });

  it('refuses the same key with other parameters, or for another operation, as a permanent conflict', async () => {
    const authorization = await captured(eur(5000));
    const idempotencyKey = fresh('refund');
    expectOperation(await t.gateway.refund({ idempotencyKey, authorizationId: authorization.id, amount: eur(1000) }), 'approved');

    const otherAmount = await t.gateway.refund({ idempotencyKey, authorizationId: authorization.id, amount: eur(1200) });
    expect(otherAmount).toMatchObject({ status: 'error', retryable: false, code: 'idempotency_conflict' });
    const otherOperation = await t.gateway.void({ idempotencyKey, authorizationId: authorization.id });
    expect(otherOperation).toMatchObject({ status: 'error', retryable: false, code: 'idempotency_conflict' });

    expect((await operationsOn(authorization.id, 'refund')).map((refund) => refund.amount.amountMinor)).toEqual([1000]);
    expect((await outcomesOf(idempotencyKey)).map(({ outcome }) => outcome)).toEqual(['executed', 'conflict', 'conflict']);
  });

  it('answers concurrent requests with one key with one operation', async () => {
    const authorization = await captured(eur(5000));
    const request = { idempotencyKey: fresh('refund'), authorizationId: authorization.id, amount: eur(3000) };
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.gateway.refund(request)));
    const ids = answers.map((answer) => expectOperation(answer, 'approved').id);
    expect(new Set(ids).size).toBe(1);
    expect(await operationsOn(authorization.id, 'refund')).toHaveLength(1);
    const outcomes = (await outcomesOf(request.idempotencyKey)).map(({ outcome }) => outcome);
    expect(outcomes.filter((outcome) => outcome === 'executed')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'replayed')).toHaveLength(7);
  });
});

describe('the rules of an authorization', () => {
  it('captures and refunds within what was authorized and captured, and refuses more without recording it', async () => {
    const authorization = await authorized(eur(5000));
    expectOperation(
      await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: authorization.id, amount: eur(3000) }),
      'approved',
    );
    const overCapture = await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: authorization.id, amount: eur(2001) });
    expect(overCapture).toMatchObject({
      status: 'error',
      retryable: false,
      code: 'amount_exceeds_authorized',
      message: expect.stringContaining('2000 left'),
    });
    const overRefundKey = fresh('refund');
    const overRefund = await t.gateway.refund({ idempotencyKey: overRefundKey, authorizationId: authorization.id, amount: eur(3001) });
    expect(overRefund).toMatchObject({ status: 'error', retryable: false, code: 'amount_exceeds_captured' });
    expect(await t.gateway.void({ idempotencyKey: fresh('void'), authorizationId: authorization.id })).toMatchObject({
      code: 'authorization_captured',
    });
    expect(
      await t.gateway.capture({
        idempotencyKey: fresh('capture'),
        authorizationId: authorization.id,
        amount: { amountMinor: 100, currency: 'USD' },
      }),
    ).toMatchObject({
      code: 'currency_mismatch',
    });
    expect(await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: 'auth_missing', amount: eur(1) })).toMatchObject({
      retryable: false,
      code: 'authorization_not_found',
    });

    expect((await operationsOn(authorization.id)).map(({ kind, amount }) => [kind, amount.amountMinor])).toEqual([
      ['authorize', 5000],
      ['capture', 3000],
    ]);
    expect(await outcomesOf(overRefundKey)).toEqual([{ outcome: 'refused', fault: null, errorCode: 'amount_exceeds_captured' }]);
  });

  it('never lets two concurrent refunds with different keys exceed what was captured', async () => {
    const authorization = await captured(eur(5000));
    const answers = await Promise.all(
      [fresh('refund'), fresh('refund')].map((idempotencyKey) =>
        t.gateway.refund({ idempotencyKey, authorizationId: authorization.id, amount: eur(3000) }),
      ),
    );
    expect(answers.map((answer) => (answer.status === 'error' ? answer.code : answer.status)).sort()).toEqual([
      'amount_exceeds_captured',
      'approved',
    ]);
    expect(await operationsOn(authorization.id, 'refund')).toHaveLength(1);
  });

  it('voids once: a second void, or a capture, of a voided authorization is refused', async () => {
    const authorization = await authorized(eur(4200));
    const voided = expectOperation(await t.gateway.void({ idempotencyKey: fresh('void'), authorizationId: authorization.id }), 'approved');
    expect(voided.amount).toEqual(eur(4200));
    expect(await t.gateway.void({ idempotencyKey: fresh('void'), authorizationId: authorization.id })).toMatchObject({
      retryable: false,
      code: 'authorization_voided',
    });
    expect(await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: authorization.id, amount: eur(1) })).toMatchObject({
      code: 'authorization_voided',
    });
  });

  it('refuses to capture or void an authorization past its expiry, 7 days on the gateway clock', async () => {
    const early = await authorized(eur(1000));
    const late = await authorized(eur(1000));
    await t.control.setClock(new Date(T0.getTime() + 7 * DAY_MS - 1000));
    expectOperation(
      await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: early.id, amount: eur(1000) }),
      'approved',
    );
    await t.control.setClock(new Date(T0.getTime() + 7 * DAY_MS));
    expect(await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: late.id, amount: eur(1000) })).toMatchObject({
      code: 'authorization_expired',
    });
    expect(await t.gateway.void({ idempotencyKey: fresh('void'), authorizationId: late.id })).toMatchObject({
      code: 'authorization_expired',
    });
  });
});

describe('scripted faults', () => {
  it('declines every authorization of a card token, and replays a decline as a decline', async () => {
    const declinedCard = fresh('tok');
    await t.control.addFault({ fault: { kind: 'decline' }, cardToken: declinedCard, times: 'always' });
    const request = { idempotencyKey: fresh('auth'), amount: eur(700), cardToken: declinedCard };
    const declined = expectOperation(await t.gateway.authorize(request), 'declined');
    expect(declined.declineCode).toBe('card_declined');
    expect(await t.gateway.authorize(request)).toEqual(declined);
    expectOperation(await t.gateway.authorize({ idempotencyKey: fresh('auth'), amount: eur(700), cardToken: declinedCard }), 'declined');
    await authorized(eur(700));
    expect(await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: declined.id, amount: eur(700) })).toMatchObject({
      code: 'authorization_declined',
    });
  });

  it('declines the next refund only, which moves no money', async () => {
    const cardToken = fresh('tok');
    const authorization = await captured(eur(5000), cardToken);
    await t.control.addFault({ fault: { kind: 'decline' }, operation: 'refund', cardToken });
    expectOperation(
      await t.gateway.refund({ idempotencyKey: fresh('refund'), authorizationId: authorization.id, amount: eur(5000) }),
      'declined',
    );
    expectOperation(
      await t.gateway.refund({ idempotencyKey: fresh('refund'), authorizationId: authorization.id, amount: eur(5000) }),
      'approved',
    );
    expect((await operationsOn(authorization.id, 'refund')).map(({ status }) => status)).toEqual(['declined', 'approved']);
  });

  it('times out without recording anything: the caller answers a retryable timeout, and the retry goes through', async () => {
    const authorization = await authorized(eur(5000));
    const idempotencyKey = fresh('capture');
    await t.control.addFault({ fault: { kind: 'timeout' }, idempotencyKey });
    const impatient = new HttpPaymentGateway({ baseUrl: t.server.url, credentials: givenCredentials(API_KEY), timeoutMs: 300 });
    const request = { idempotencyKey, authorizationId: authorization.id, amount: eur(5000) };
    expect(await impatient.capture(request)).toMatchObject({ status: 'error', retryable: true, code: 'timeout' });
    expect(await operationsOn(authorization.id, 'capture')).toEqual([]);
    expectOperation(await impatient.capture(request), 'approved');
    expect(await outcomesOf(idempotencyKey)).toEqual([
      { outcome: 'dropped', fault: 'timeout', errorCode: null },
      { outcome: 'executed', fault: null, errorCode: null },
    ]);
  });

  it('commits a refund and then answers 500: the retry with its key replays it, so the card is refunded once', async () => {
    const authorization = await captured(eur(5000));
    const idempotencyKey = fresh('refund');
    await t.control.addFault({ fault: { kind: 'commit_then_error' }, operation: 'refund', idempotencyKey });
    const request = { idempotencyKey, authorizationId: authorization.id, amount: eur(2500) };
    expect(await t.gateway.refund(request)).toMatchObject({ status: 'error', retryable: true, code: 'server_error' });
    expect(await t.gateway.lookUp(idempotencyKey)).toMatchObject({ status: 'approved', kind: 'refund' });
    const retried = expectOperation(await t.gateway.refund(request), 'approved');
    expect(await operationsOn(authorization.id, 'refund')).toEqual([retried]);
    expect(await outcomesOf(idempotencyKey)).toEqual([
      { outcome: 'executed', fault: 'commit_then_error', errorCode: null },
      { outcome: 'replayed', fault: null, errorCode: null },
    ]);
  });

  it('commits a capture and then never answers: the caller sees a timeout, and the retry with its key replays the capture', async () => {
    const authorization = await authorized(eur(5000));
    const idempotencyKey = fresh('capture');
    await t.control.addFault({ fault: { kind: 'commit_then_timeout' }, idempotencyKey });
    const impatient = new HttpPaymentGateway({ baseUrl: t.server.url, credentials: givenCredentials(API_KEY), timeoutMs: 300 });
    const request = { idempotencyKey, authorizationId: authorization.id, amount: eur(5000) };
    expect(await impatient.capture(request)).toMatchObject({ status: 'error', retryable: true, code: 'timeout' });
    const retried = expectOperation(await impatient.capture(request), 'approved');
    expect(await operationsOn(authorization.id, 'capture')).toEqual([retried]);
    expect((await outcomesOf(idempotencyKey)).map(({ outcome, fault }) => [outcome, fault])).toEqual([
      ['executed', 'commit_then_timeout'],
      ['replayed', null],
    ]);
  });

  it('keeps a refund pending for N days on its clock: a look-up sees it settle, a replay answers what it first answered', async () => {
    const cardToken = fresh('tok');
    const authorization = await captured(eur(5000), cardToken);
    await t.control.addFault({ fault: { kind: 'refund_pending', days: 3 }, cardToken });
    const request = { idempotencyKey: fresh('refund'), authorizationId: authorization.id, amount: eur(5000) };
    const pending = expectOperation(await t.gateway.refund(request), 'pending');
    expect(pending.settlesAt).toBe(new Date(T0.getTime() + 3 * DAY_MS).toISOString());
    // The pending amount is held: nothing more can be refunded meanwhile.
    expect(await t.gateway.refund({ idempotencyKey: fresh('refund'), authorizationId: authorization.id, amount: eur(1) })).toMatchObject({
      code: 'amount_exceeds_captured',
    });

    await t.control.setClock(new Date(T0.getTime() + 3 * DAY_MS - 1));
    expect(await t.gateway.lookUp(request.idempotencyKey)).toEqual(pending);
    await t.control.setClock(new Date(T0.getTime() + 3 * DAY_MS));
    const settled = await t.gateway.lookUp(request.idempotencyKey);
    expect(settled).toEqual({ ...omitSettlesAt(pending), status: 'approved' });
    expect(await t.gateway.refund(request)).toEqual(pending);
  });

  it('answers an authorization requires_action, which cannot be captured until the action is completed', async () => {
    const cardToken = fresh('tok');
    await t.control.addFault({ fault: { kind: 'requires_action' }, cardToken });
    const idempotencyKey = fresh('auth');
    const waiting = expectOperation(await t.gateway.authorize({ idempotencyKey, amount: eur(900), cardToken }), 'requires_action');
    expect(waiting.actionUrl).toBe(`${t.server.url}/test/authorizations/${waiting.id}/complete-action`);
    expect(await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: waiting.id, amount: eur(900) })).toMatchObject({
      retryable: false,
      code: 'authorization_requires_action',
    });

    await t.control.completeAction(waiting.id);
    expect(await t.gateway.lookUp(idempotencyKey)).toMatchObject({ status: 'approved', id: waiting.id });
    expectOperation(
      await t.gateway.capture({ idempotencyKey: fresh('capture'), authorizationId: waiting.id, amount: eur(900) }),
      'approved',
    );
  });

  it('refuses a fault rule that cannot apply, saying why', async () => {
    await expect(t.control.addFault({ fault: { kind: 'refund_pending', days: 2 }, operation: 'authorize' })).rejects.toThrow(
      /refund_pending cannot apply to authorize; it applies to refund/,
    );
    await expect(t.control.addFault({ fault: { kind: 'refund_pending', days: 0 } })).rejects.toThrow(/needs days > 0/);
  });
});

describe('two gateway servers on one database', () => {
  it('share keys, faults and the clock: concurrent requests with one key through both record one operation', async () => {
    const second = await startTestGateway({ databaseUrl: t.database.url, apiKey: API_KEY });
    try {
      const other = new HttpPaymentGateway({ baseUrl: second.url, credentials: givenCredentials(API_KEY) });
      const cardToken = fresh('tok');
      const authorization = await captured(eur(5000), cardToken);
      await t.control.addFault({ fault: { kind: 'refund_pending', days: 2 }, cardToken });
      const request = { idempotencyKey: fresh('refund'), authorizationId: authorization.id, amount: eur(5000) };
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? t.gateway : other).refund(request)));
      const ids = answers.map((answer) => expectOperation(answer, 'pending').id);
      expect(new Set(ids).size).toBe(1);
      expect(await operationsOn(authorization.id, 'refund')).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});

describe('the wire', () => {
  it('answers a wrong API key as a permanent authentication failure', async () => {
    const wrongKey = new HttpPaymentGateway({ baseUrl: t.server.url, credentials: givenCredentials('not_the_key') });
    expect(await wrongKey.authorize({ idempotencyKey: fresh('auth'), amount: eur(100), cardToken: fresh('tok') })).toMatchObject({
      status: 'error',
      retryable: false,
      code: 'authentication_failed',
    });
  });

  it('refuses a malformed request permanently, naming the field', async () => {
    const answer = await t.gateway.authorize({
      idempotencyKey: fresh('auth'),
      amount: { amountMinor: 10.5, currency: 'EUR' },
      cardToken: fresh('tok'),
    });
    expect(answer).toMatchObject({
      status: 'error',
      retryable: false,
      code: 'invalid_request',
      message: expect.stringContaining('amountMinor'),
    });
    const notJson = await fetch(`${t.server.url}/v1/authorizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': fresh('auth') },
      body: '{"amount":',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('takes the same amount written with its fields in another order as the same request', async () => {
    const idempotencyKey = fresh('auth');
    const cardToken = fresh('tok');
    const send = (amount: string) =>
      fetch(`${t.server.url}/v1/authorizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: `{"cardToken":"${cardToken}","amount":${amount}}`,
      }).then((response) => response.json());
    const first = await send('{"amountMinor":300,"currency":"EUR"}');
    expect(await send('{"currency":"EUR","amountMinor":300}')).toEqual(first);
    expect((await outcomesOf(idempotencyKey)).map(({ outcome }) => outcome)).toEqual(['executed', 'replayed']);
  });
});

function omitSettlesAt({ settlesAt: _settlesAt, ...rest }: Extract<GatewayOperation, { status: 'pending' }>) {
  return rest;
}
