import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueGuestSessionId, signAccessToken, tokenSettings } from '@shop/domain/auth';
import { startApiOnOwnDatabase, type RunningApi } from '../support/start-api.ts';
import { waitFor } from '../../../../test/support/wait.ts';
import { metricValue, newEntityId, storedEvents, track } from '../support/tracking.ts';

// The GraphQL track mutation records through the same Tracker as POST /track: these tests run it
// against the real api, PostgreSQL and Redis, and read the rows the buffer wrote.

let api: RunningApi;

beforeAll(async () => {
  api = await startApiOnOwnDatabase('track_graphql');
});

afterAll(async () => {
  await api?.close();
});

const pool = () => api.platform.database.pool;

/** A new guest session id, signed with the api's SECRET_KEY as startGuestSession signs it: GraphQL refuses any other. */
const newSession = (): string => issueGuestSessionId({ secret: api.platform.config.secretKey });

const TRACK = `mutation Track($events: [TrackEventInput!]!) { track(events: $events) { accepted } }`;

interface GraphqlAnswer {
  data?: { track: { accepted: number } | null } | null;
  errors?: { message: string; extensions: Record<string, unknown> }[];
}

/** The track mutation with X-Session-ID unless `session` is null; a unique client address unless given. */
async function trackMutation(events: unknown, options: { session?: string | null; headers?: Record<string, string>; query?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.session !== null && options.session !== undefined) headers['x-session-id'] = options.session;
  const response = await api.app.inject({
    method: 'POST',
    url: '/graphql',
    headers,
    payload: JSON.stringify({ query: options.query ?? TRACK, variables: { events } }),
  });
  return { response, body: response.json<GraphqlAnswer>() };
}

const event = (overrides: Record<string, unknown> = {}) => ({
  event_type: 'impression',
  entity_type: 'banner',
  entity_id: String(newEntityId()),
  page_url: 'https://shop.example/',
  ...overrides,
});

/** A client address of its own, so the rate-limit buckets (in the Redis every test file shares) start full. */
const newAddress = (): string => `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** Changes the track policy, then waits until /track answers with it: the api applies a change when PostgreSQL notifies it. */
async function setTrackPolicy(capacity: number, refillPerSecond: number): Promise<void> {
  await pool().query("UPDATE rate_limit_policies SET capacity = $1, refill_per_second = $2 WHERE key = 'track'", [
    capacity,
    refillPerSecond,
  ]);
  const headers = { 'x-forwarded-for': newAddress() };
  const applied = async () =>
    String((await track(api.app, { session: newSession(), body: event(), headers })).headers['ratelimit-policy']).startsWith(
      `"track";q=${capacity};`,
    );
  await waitFor(applied, 5_000, `the api to apply the track policy q=${capacity}`, 25);
}

describe('the track mutation records events like POST /track', () => {
  it('stores every field of each event, with the session, client address, user agent and the customer of the token', async () => {
    const session = newSession();
    const { token } = await signAccessToken(
      { kind: 'customer', customerId: 58n, channelId: 1n, customerGroupId: 6n },
      tokenSettings(api.platform.config.secretKey),
    );
    const entityId = String(newEntityId());
    const { response, body } = await trackMutation(
      [
        event({ entity_id: entityId, event_type: 'click', entity_type: 'slide', referrer_url: 'https://ref.example/', channel_id: '3' }),
        event({ entity_id: entityId, event_type: 'click', entity_type: 'slide', page_url: `https://shop.example/${'x'.repeat(600)}` }),
      ],
      { session, headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.9, 10.0.0.1', 'user-agent': 'graphql-test' } },
    );
    expect(response.statusCode).toBe(200);
    expect(body).toEqual({ data: { track: { accepted: 2 } } });
    const stored = await storedEvents(pool(), session, 2);
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({
      event_type: 'click',
      entity_type: 'slide',
      entity_id: entityId,
      user_id: '58',
      customer_group_id: '6',
      is_authenticated: true,
      session_id: session,
      ip_address: '203.0.113.9',
      user_agent: 'graphql-test',
      page_url: 'https://shop.example/',
      referrer_url: 'https://ref.example/',
      channel_id: '3',
      is_repeat: false,
    });
    // The second click of the same entity in one request is a repeat; its long URL is cut, not refused.
    expect(stored[1]).toMatchObject({ is_repeat: true, referrer_url: '', channel_id: null });
    expect(stored[1]?.page_url).toHaveLength(500);
  });

  it('shares is_repeat with POST /track: a click through one after a click through the other is a repeat', async () => {
    const session = newSession();
    const entity_id = newEntityId();
    expect(
      (await track(api.app, { session, body: { event_type: 'click', entity_type: 'hero', entity_id, page_url: '/' } })).statusCode,
    ).toBe(202);
    const { body } = await trackMutation([event({ event_type: 'click', entity_type: 'hero', entity_id: String(entity_id) })], { session });
    expect(body.data?.track?.accepted).toBe(1);
    const stored = await storedEvents(pool(), session, 2);
    expect(stored.map((row) => row.is_repeat)).toEqual([false, true]);
  });

  it('takes a single event object as a list of one, and integer ids', async () => {
    const session = newSession();
    const entityId = newEntityId();
    const query = `mutation { track(events: { event_type: "impression", entity_type: "banner", entity_id: ${entityId}, page_url: "/one" }) { accepted } }`;
    const { body } = await trackMutation(undefined, { session, query });
    expect(body).toEqual({ data: { track: { accepted: 1 } } });
    expect(await storedEvents(pool(), session)).toMatchObject([{ entity_id: String(entityId), page_url: '/one' }]);
  });

  it('counts the events it receives in the same metric as POST /track', async () => {
    const sample = 'tracking_events_received_total{event_type="impression",service="api"}';
    const before = await metricValue(api.app, sample);
    await trackMutation([event(), event()], { session: newSession() });
    expect(await metricValue(api.app, sample)).toBe(before + 2);
  });
});

describe('the track mutation refuses what POST /track refuses, naming the field, and stores none of it', () => {
  const refusals: [string, { events: unknown; session?: string | null }, string, string][] = [
    ['no X-Session-ID', { events: [event()], session: null }, 'X-Session-ID', 'X-Session-ID header is required'],
    [
      'an unknown event type',
      { events: [event({ event_type: 'hover' })] },
      'events[0].event_type',
      'events[0].event_type must be one of impression, click',
    ],
    [
      'an unknown entity type in the second event',
      { events: [event(), event({ entity_type: 'popup' })] },
      'events[1].entity_type',
      'events[1].entity_type must be one of banner, slide, hero',
    ],
    [
      'a missing entity id',
      { events: [{ event_type: 'click', entity_type: 'banner', page_url: '/' }] },
      'events[0].entity_id',
      'events[0].entity_id is required',
    ],
    ['a null page url', { events: [event({ page_url: null })] }, 'events[0].page_url', 'events[0].page_url is required'],
    [
      'an entity id that is no number',
      { events: [event({ entity_id: 'abc' })] },
      'events[0].entity_id',
      'events[0].entity_id must be a positive integer id (a decimal string, or a JSON integer up to 2^53 - 1)',
    ],
    [
      'an entity id beyond bigint',
      { events: [event({ entity_id: '9223372036854775808' })] },
      'events[0].entity_id',
      'events[0].entity_id must be at most 9223372036854775807',
    ],
    [
      'a channel id that is no id',
      { events: [event({ channel_id: 'web' })] },
      'events[0].channel_id',
      'events[0].channel_id must be a positive integer id (a decimal string, or a JSON integer up to 2^53 - 1)',
    ],
    ['no events', { events: [] }, 'events', 'events must hold at least one event'],
    ['more than 50 events', { events: Array.from({ length: 51 }, () => event()) }, 'events', 'events must hold at most 50 events'],
  ];

  it.each(refusals)('answers %s with BAD_USER_INPUT', async (_name, request, field, message) => {
    const session = request.session === undefined ? newSession() : request.session;
    const { body } = await trackMutation(request.events, { session });
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_USER_INPUT', field } });
    if (typeof session === 'string') {
      // A valid event after the refused one is written within a flush; the refused one never is.
      await trackMutation([event({ page_url: '/after' })], { session });
      const stored = await storedEvents(pool(), session);
      expect(stored.map((row) => row.page_url)).toEqual(['/after']);
    }
  });

  it('answers an X-Session-ID the api did not issue with BAD_USER_INPUT naming the header', async () => {
    const { response, body } = await trackMutation([event()], { session: 'picked-by-the-client' });
    expect(response.statusCode).toBe(400);
    expect(body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'X-Session-ID', reason: 'not_issued' } });
  });
});

describe('the track mutation and tokens', () => {
  it('records a staff token as anonymous and counts it, as POST /track does', async () => {
    const sample = 'tracking_ignored_tokens_total{reason="not_customer",service="api"}';
    const before = await metricValue(api.app, sample);
    const session = newSession();
    const { token } = await signAccessToken({ kind: 'staff', staffUserId: 2n }, tokenSettings(api.platform.config.secretKey));
    const { body } = await trackMutation([event()], { session, headers: { authorization: `Bearer ${token}` } });
    expect(body.data?.track?.accepted).toBe(1);
    expect(await storedEvents(pool(), session)).toMatchObject([{ user_id: null, customer_group_id: null, is_authenticated: false }]);
    expect(await metricValue(api.app, sample)).toBe(before + 1);
  });
});

describe('the track mutation and the rate limit', () => {
  it('spends the same per-address track bucket as POST /track, and is refused with RATE_LIMITED once it is empty', async () => {
    await setTrackPolicy(3, 0.001);
    try {
      const headers = { 'x-forwarded-for': newAddress() };
      const session = newSession();
      expect((await track(api.app, { session, body: event(), headers })).statusCode).toBe(202);
      const allowed = await trackMutation([event()], { session, headers });
      expect(allowed.body.data?.track?.accepted).toBe(1);
      expect(allowed.response.headers.ratelimit).toContain('"track";r=1;');
      expect((await track(api.app, { session, body: event(), headers })).statusCode).toBe(202);

      const limited = await trackMutation([event({ page_url: '/limited' })], { session, headers });
      expect(limited.response.statusCode).toBe(429);
      expect(limited.response.headers['retry-after']).toBeDefined();
      expect(limited.body.errors?.[0]?.extensions.code).toBe('RATE_LIMITED');
      expect((await track(api.app, { session, body: event(), headers })).statusCode).toBe(429);
      const stored = await storedEvents(pool(), session, 3);
      expect(stored.map((row) => row.page_url)).not.toContain('/limited');
    } finally {
      // Back to the lifted limit before the next test, which sends 10,000 events from one address.
      await setTrackPolicy(100_000, 10_000);
    }
  });
});

describe('the track mutation when the buffer is full', () => {
  it('answers UNAVAILABLE with retryAfterSeconds and Retry-After, and stores nothing of that request', async () => {
    const capacity = 10_000;
    const filler = newSession();
    const refusedSession = newSession();
    const rejected = 'tracking_events_rejected_total{reason="buffer_full",service="api"}';
    const rejectedBefore = await metricValue(api.app, rejected);
    // Start from an empty buffer (earlier tests' events are written), so exactly `capacity` more fill it.
    await api.app.tracker?.flush();
    expect(await metricValue(api.app, 'tracking_buffer_events{service="api"}')).toBe(0);
    // Hold every INSERT into tracking_events (reads go on): the buffer's writes wait, so what it accepts stays in it.
    const locker = await pool().connect();
    let locked = true;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tracking_events IN EXCLUSIVE MODE');
      const fifty = Array.from({ length: 50 }, () => event());
      for (let sent = 0; sent < capacity; sent += fifty.length) {
        expect((await track(api.app, { session: filler, body: fifty })).statusCode).toBe(202);
      }

      const { response, body } = await trackMutation([event({ page_url: '/refused' })], { session: refusedSession });
      expect(body.data).toBeNull();
      expect(body.errors).toHaveLength(1);
      expect(body.errors?.[0]).toMatchObject({
        message: 'too many tracking events are waiting to be written; retry later',
        extensions: { code: 'UNAVAILABLE', retryAfterSeconds: 1 },
      });
      expect(response.headers['retry-after']).toBe('1');
      expect(await metricValue(api.app, rejected)).toBe(rejectedBefore + 1);

      await locker.query('COMMIT');
      locked = false;
    } finally {
      if (locked) await locker.query('ROLLBACK');
      locker.release();
    }
    // Once the writes go through, every accepted event is stored and the refused one is not.
    expect(await storedEvents(pool(), filler, capacity, 30_000)).toHaveLength(capacity);
    const { response } = await trackMutation([event({ page_url: '/after' })], { session: refusedSession });
    expect(response.statusCode).toBe(200);
    expect((await storedEvents(pool(), refusedSession)).map((row) => row.page_url)).toEqual(['/after']);
  });
});
