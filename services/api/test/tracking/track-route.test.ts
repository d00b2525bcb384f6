import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken, tokenSettings } from '@shop/domain/auth';
import { startApiOnOwnDatabase, type RunningApi } from '../support/start-api.ts';
import { metricValue, newEntityId, newSession, storedEvents, track } from '../support/tracking.ts';

let api: RunningApi;

beforeAll(async () => {
  api = await startApiOnOwnDatabase('track_route');
});

afterAll(async () => {
  await api?.close();
});

const pool = () => api.platform.database.pool;
const event = (overrides: Record<string, unknown> = {}) => ({
  event_type: 'impression',
  entity_type: 'banner',
  entity_id: newEntityId(),
  page_url: 'https://shop.example/',
  ...overrides,
});

async function countOf(sessionId: string): Promise<number> {
  const { rows } = await pool().query<{ n: number }>('SELECT count(*)::int AS n FROM tracking_events WHERE session_id = $1', [sessionId]);
  return rows[0]?.n ?? 0;
}

/** Writes what the api's tracking buffer holds. */
async function flushed(): Promise<void> {
  const { tracker } = api.app;
  if (tracker === undefined) throw new Error('the api has no tracker');
  await tracker.flush();
}

const tokens = () => tokenSettings(api.platform.config.secretKey);

describe('POST /track records events', () => {
  it('answers 202 and stores one event with every field', async () => {
    const session = newSession();
    const response = await track(api.app, {
      session,
      body: {
        event_type: 'click',
        entity_type: 'hero',
        entity_id: '42',
        page_url: 'https://shop.example/p/1',
        referrer_url: 'https://search.example/',
        channel_id: 7,
      },
      headers: { 'user-agent': 'Mozilla/5.0 (test)', 'x-forwarded-for': '198.51.100.23, 10.0.0.2' },
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ accepted: 1 });
    const [stored] = await storedEvents(pool(), session);
    expect(stored).toEqual({
      event_type: 'click',
      entity_type: 'hero',
      entity_id: '42',
      user_id: null,
      customer_group_id: null,
      is_authenticated: false,
      session_id: session,
      ip_address: '198.51.100.23',
      user_agent: 'Mozilla/5.0 (test)',
      page_url: 'https://shop.example/p/1',
      referrer_url: 'https://search.example/',
      is_repeat: false,
      channel_id: '7',
      created_at: expect.any(Date),
    });
  });

  it('accepts a batch and stores every event of it', async () => {
    const session = newSession();
    const batch = [event(), event({ entity_type: 'slide' }), event({ event_type: 'click', entity_type: 'hero' })];
    const response = await track(api.app, { session, body: batch });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ accepted: 3 });
    const stored = await storedEvents(pool(), session, 3);
    expect(stored.map((row) => [row.event_type, row.entity_type, row.entity_id])).toEqual(
      batch.map((item) => [item.event_type, item.entity_type, String(item.entity_id)]),
    );
  });

  it('accepts 50 events in one request', async () => {
    const session = newSession();
    const response = await track(api.app, { session, body: Array.from({ length: 50 }, () => event()) });
    expect(response.statusCode).toBe(202);
    expect(await storedEvents(pool(), session, 50)).toHaveLength(50);
  });

  it('cuts over-long URLs and user agents to 500 characters instead of refusing them', async () => {
    const session = newSession();
    const long = `https://shop.example/${'x'.repeat(2_000)}`;
    const response = await track(api.app, {
      session,
      body: event({ page_url: long, referrer_url: long }),
      headers: { 'user-agent': 'A'.repeat(900) },
    });
    expect(response.statusCode).toBe(202);
    const [stored] = await storedEvents(pool(), session);
    expect(stored?.page_url).toBe(long.slice(0, 500));
    expect(stored?.referrer_url).toBe(long.slice(0, 500));
    expect(stored?.user_agent).toBe('A'.repeat(500));
  });

  it('stores an empty referrer when there is none, and the peer address without X-Forwarded-For', async () => {
    const session = newSession();
    expect((await track(api.app, { session, body: event({ channel_id: null }), remoteAddress: '192.0.2.9' })).statusCode).toBe(202);
    const [stored] = await storedEvents(pool(), session);
    expect(stored).toMatchObject({ referrer_url: '', ip_address: '192.0.2.9', channel_id: null });
  });

  it('reads a text/plain body as JSON, as navigator.sendBeacon sends it', async () => {
    const session = newSession();
    const response = await track(api.app, {
      session,
      payload: JSON.stringify(event()),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(response.statusCode).toBe(202);
    expect(await storedEvents(pool(), session)).toHaveLength(1);
  });

  // Found by the fuzz test (docs/fuzzing.md): Fastify refused such a body as "not valid JSON".
  for (const contentType of ['application/json', 'text/plain;charset=UTF-8']) {
    it(`ignores __proto__ and constructor.prototype properties like any unknown one (${contentType})`, async () => {
      const session = newSession();
      const payload = `[${JSON.stringify(event()).slice(0, -1)},"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}]`;
      const response = await track(api.app, { session, payload, headers: { 'content-type': contentType } });
      expect(response.json()).toEqual({ accepted: 1 });
      expect(await storedEvents(pool(), session)).toHaveLength(1);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it('takes X-Session-ID of up to 255 characters', async () => {
    const session = newSession().padEnd(255, 'x');
    expect((await track(api.app, { session, body: event() })).statusCode).toBe(202);
    expect(await storedEvents(pool(), session)).toHaveLength(1);
  });
});

describe('POST /track refuses what it cannot store, and stores none of it', () => {
  const refusals: [string, { body?: unknown; payload?: string; session?: string | null }, RegExp | string][] = [
    ['no X-Session-ID', { body: event(), session: null }, 'X-Session-ID header is required'],
    ['an empty X-Session-ID', { body: event(), session: ' ' }, 'X-Session-ID header is required'],
    [
      'an X-Session-ID over 255 characters',
      { body: event(), session: 'a'.repeat(256) },
      'X-Session-ID header must be at most 255 characters',
    ],
    ['an unknown event type', { body: event({ event_type: 'hover' }) }, 'event_type must be one of impression, click'],
    ['an unknown entity type', { body: event({ entity_type: 'popup' }) }, 'entity_type must be one of banner, slide, hero'],
    ['a missing entity id', { body: { event_type: 'click', entity_type: 'banner', page_url: '/' } }, 'entity_id is required'],
    ['a missing page url', { body: { event_type: 'click', entity_type: 'banner', entity_id: 1 } }, 'page_url is required'],
    ['an entity id that is no number', { body: event({ entity_id: 'abc' }) }, /^entity_id must be a positive integer id/],
    ['a zero entity id', { body: event({ entity_id: 0 }) }, /^entity_id must be a positive integer id/],
    ['a boolean entity id', { body: event({ entity_id: true }) }, 'entity_id must be an integer or a string'],
    ['a fractional entity id', { body: event({ entity_id: 1.5 }) }, 'entity_id must be an integer or a string'],
    ['an entity id beyond 2^53 as a JSON number', { body: event({ entity_id: 2 ** 60 }) }, /^entity_id must be a positive integer id/],
    ['an entity id beyond bigint', { body: event({ entity_id: '9223372036854775808' }) }, 'entity_id must be at most 9223372036854775807'],
    ['a null page url', { body: event({ page_url: null }) }, 'page_url must be a string'],
    ['a channel id that is no id', { body: event({ channel_id: 'web' }) }, /^channel_id must be a positive integer id/],
    ['a zero channel id', { body: event({ channel_id: 0 }) }, /^channel_id must be a positive integer id/],
    ['a negative entity id', { body: event({ entity_id: -3 }) }, /^entity_id must be a positive integer id/],
    ['a bad event inside a batch', { body: [event(), event({ event_type: 'hover' })] }, '[1].event_type must be one of impression, click'],
    ['more than 50 events', { body: Array.from({ length: 51 }, () => event()) }, 'body must hold at most 50 events'],
    ['an empty batch', { body: [] }, 'body must hold at least one event'],
    ['a body that is no event', { body: 'click' }, 'body must be an event object or a list of them'],
    ['a batch holding no object', { body: [event(), 5] }, '[1] must be an event object'],
  ];

  it.each(refusals)('answers 400 to %s, naming it', async (_name, request, message) => {
    const session = request.session === undefined ? newSession() : request.session;
    const response = await track(api.app, { ...request, session });
    expect(response.statusCode).toBe(400);
    const body = response.json<{ error: { code: string; message: string } }>();
    expect(body.error.code).toBe('BAD_REQUEST');
    if (typeof message === 'string') expect(body.error.message).toBe(message);
    else expect(body.error.message).toMatch(message);
    if (typeof session === 'string') {
      await flushed(); // anything the request had queued is in the table now
      expect(await countOf(session)).toBe(0);
    }
  });

  it('answers unparseable JSON with 400 in the REST error shape', async () => {
    const response = await track(api.app, { session: newSession(), payload: '{"event_type": ' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'BAD_REQUEST' } });
  });

  it('counts refusals by reason', async () => {
    const before = await metricValue(api.app, 'tracking_events_rejected_total{reason="missing_session_id",service="api"}');
    await track(api.app, { session: null, body: [event(), event()] });
    expect(await metricValue(api.app, 'tracking_events_rejected_total{reason="missing_session_id",service="api"}')).toBe(before + 2);
  });
});

describe('POST /track and tokens', () => {
  it('records the customer, their group and is_authenticated from a valid Bearer token', async () => {
    const session = newSession();
    const { token } = await signAccessToken({ kind: 'customer', customerId: 31n, channelId: 1n, customerGroupId: 4n }, tokens());
    const response = await track(api.app, { session, body: event(), headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(202);
    const [stored] = await storedEvents(pool(), session);
    expect(stored).toMatchObject({ user_id: '31', customer_group_id: '4', is_authenticated: true });
  });

  const ignored: [string, () => Promise<string>, string][] = [
    [
      'a token signed with another key',
      async () =>
        `Bearer ${(await signAccessToken({ kind: 'customer', customerId: 31n, channelId: 1n, customerGroupId: null }, tokenSettings('another-key'))).token}`,
      'bad_signature',
    ],
    [
      'an expired token',
      async () =>
        `Bearer ${(await signAccessToken({ kind: 'customer', customerId: 31n, channelId: 1n, customerGroupId: null }, tokenSettings(api.platform.config.secretKey, { now: () => new Date(Date.now() - 3_600_000) }))).token}`,
      'expired',
    ],
    ['garbage', async () => 'Bearer not.a.jwt', 'malformed'],
    ['a scheme other than Bearer', async () => 'Basic dXNlcjpwYXNz', 'not_bearer'],
    ['a staff token', async () => `Bearer ${(await signAccessToken({ kind: 'staff', staffUserId: 2n }, tokens())).token}`, 'not_customer'],
  ];

  it.each(ignored)('records the event anonymous with %s, and counts it', async (_name, header, reason) => {
    const sample = `tracking_ignored_tokens_total{reason="${reason}",service="api"}`;
    const before = await metricValue(api.app, sample);
    const session = newSession();
    const response = await track(api.app, { session, body: event(), headers: { authorization: await header() } });
    expect(response.statusCode).toBe(202);
    const [stored] = await storedEvents(pool(), session);
    expect(stored).toMatchObject({ user_id: null, customer_group_id: null, is_authenticated: false });
    expect(await metricValue(api.app, sample)).toBe(before + 1);
  });
});

describe('is_repeat', () => {
  it('is false for a first click and true for the next by the same session; impressions never repeat', async () => {
    const session = newSession();
    const entity_id = newEntityId();
    for (const body of [
      event({ entity_id, event_type: 'impression' }),
      event({ entity_id, event_type: 'impression' }),
      event({ entity_id, event_type: 'click' }),
      event({ entity_id, event_type: 'click' }),
      [event({ entity_id: entity_id + 1, event_type: 'click' }), event({ entity_id: entity_id + 1, event_type: 'click' })],
    ]) {
      expect((await track(api.app, { session, body })).statusCode).toBe(202);
    }
    const stored = await storedEvents(pool(), session, 6);
    expect(stored.map((row) => [row.event_type, row.is_repeat])).toEqual([
      ['impression', false],
      ['impression', false],
      ['click', false],
      ['click', true],
      ['click', false],
      ['click', true],
    ]);
  });

  it('is true for a signed-in customer who clicked the entity before in another session', async () => {
    const entity_id = newEntityId();
    const customerId = BigInt(newEntityId());
    const { token } = await signAccessToken({ kind: 'customer', customerId, channelId: 1n, customerGroupId: null }, tokens());
    const [phone, laptop] = [newSession('phone'), newSession('laptop')];
    await track(api.app, {
      session: phone,
      body: event({ entity_id, event_type: 'click' }),
      headers: { authorization: `Bearer ${token}` },
    });
    await track(api.app, {
      session: laptop,
      body: event({ entity_id, event_type: 'click' }),
      headers: { authorization: `Bearer ${token}` },
    });
    expect((await storedEvents(pool(), phone))[0]?.is_repeat).toBe(false);
    expect((await storedEvents(pool(), laptop))[0]?.is_repeat).toBe(true);
  });

  it('marks exactly one of many concurrent first clicks as the first', async () => {
    const session = newSession();
    const entity_id = newEntityId();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => track(api.app, { session, body: event({ entity_id, event_type: 'click' }) })),
    );
    expect(responses.every((response) => response.statusCode === 202)).toBe(true);
    const stored = await storedEvents(pool(), session, 30);
    expect(stored).toHaveLength(30);
    expect(stored.filter((row) => !row.is_repeat)).toHaveLength(1);
  });
});

describe('tracking metrics', () => {
  it('exports received, written, rejected, dropped, buffer size and flush duration', async () => {
    const session = newSession();
    const before = await metricValue(api.app, 'tracking_events_received_total{event_type="click",service="api"}');
    await track(api.app, { session, body: [event({ event_type: 'click' }), event({ event_type: 'click' })] });
    await storedEvents(pool(), session, 2);
    expect(await metricValue(api.app, 'tracking_events_received_total{event_type="click",service="api"}')).toBe(before + 2);
    const text = (await api.app.inject({ method: 'GET', url: '/metrics' })).body;
    for (const name of [
      '# TYPE tracking_events_received_total counter',
      '# TYPE tracking_events_written_total counter',
      '# TYPE tracking_events_rejected_total counter',
      '# TYPE tracking_events_dropped_total counter',
      '# TYPE tracking_buffer_events gauge',
      '# TYPE tracking_flush_duration_seconds histogram',
      '# TYPE tracking_ignored_tokens_total counter',
    ]) {
      expect(text).toContain(name);
    }
    expect(await metricValue(api.app, 'tracking_events_written_total{service="api"}')).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^tracking_flush_duration_seconds_count\{service="api",result="ok"\} [1-9]/m);
  });
});
