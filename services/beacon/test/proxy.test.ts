import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  SessionCookie,
  START_GUEST_SESSION,
  storefrontSession,
  trackProxy,
  trackProxyFetch,
  type RelayFailure,
  type TrackRelayOptions,
} from '../src/proxy.ts';

interface Received {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A stand-in for the api: records what reaches it and answers what the test says; POST /graphql issues sessions. */
let api: Server;
let apiUrl: string;
let answer: Answer = { status: 202, body: '{"accepted":1}' };
let sessionAnswer: Answer | undefined;
/** What reached POST /track. */
const received: Received[] = [];
/** What reached POST /graphql: the relay asking for new sessions. */
const sessionRequests: Received[] = [];
let issued = 0;
/** A session id shaped as the api issues them. */
const issuedId = (n: number) => `g1.${String(n).padStart(22, 'A')}.${'t'.repeat(22)}`;
const sockets = new Set<Socket>();
const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  api = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const isSession = req.url?.endsWith('/graphql') === true;
      (isSession ? sessionRequests : received).push(request);
      const given = isSession
        ? (sessionAnswer ?? { status: 200, body: JSON.stringify({ data: { startGuestSession: issuedId(++issued) } }) })
        : answer;
      if (given === 'hang') return;
      // No keep-alive: afterEach destroys the sockets, and the next test must not reuse a dead one.
      res
        .writeHead(given.status, { 'content-type': 'application/json; charset=utf-8', connection: 'close', ...given.headers })
        .end(given.body ?? '{}');
    });
  });
  api.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  apiUrl = await listen(api);
});

afterEach(async () => {
  answer = { status: 202, body: '{"accepted":1}' };
  sessionAnswer = undefined;
  received.length = 0;
  sessionRequests.length = 0;
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

afterAll(async () => {
  await new Promise((resolve) => api?.close(resolve));
});

/** A storefront serving `handler` (the node:http relay unless given). */
async function storefront(options: Partial<TrackRelayOptions> = {}, handler?: RequestListener): Promise<string> {
  const server = createServer(handler ?? trackProxy({ apiUrl, ...options }));
  servers.push(server);
  return listen(server);
}

const EVENT = JSON.stringify({ event_type: 'click', entity_type: 'banner', entity_id: '7', page_url: 'https://shop.example/' });
const SESSION = issuedId(0);
const ISSUED_COOKIE = /^shop_session=(g1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}); Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/;

function beacon(url: string, headers: Record<string, string> = {}, body: string = EVENT): Promise<Response> {
  return fetch(`${url}/api/track`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

describe('the node:http relay', () => {
  it('forwards the beacon to POST /track with the session, the client address, the user agent and the token', async () => {
    const url = await storefront();
    const response = await beacon(url, {
      cookie: `theme=dark; shop_session=${SESSION}`,
      'x-forwarded-for': '198.51.100.7, 10.0.0.2',
      'user-agent': 'Mozilla/5.0 (test)',
      authorization: 'Bearer customer-token',
      'content-type': 'text/plain;charset=UTF-8',
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: 1 });
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(received).toHaveLength(1);
    const [forwarded] = received;
    expect(forwarded).toMatchObject({ method: 'POST', url: '/track', body: EVENT });
    expect(forwarded?.headers).toMatchObject({
      'x-session-id': SESSION,
      'x-forwarded-for': '198.51.100.7, 10.0.0.2, 127.0.0.1',
      'user-agent': 'Mozilla/5.0 (test)',
      authorization: 'Bearer customer-token',
      'content-type': 'text/plain;charset=UTF-8',
    });
    expect(forwarded?.headers.cookie).toBeUndefined();
    expect(sessionRequests).toEqual([]);
  });

  it('sends a storefront token with the client address as the shopper, to POST /track and to startGuestSession, and none without one', async () => {
    const token = `sft_${'x'.repeat(43)}`;
    const url = await storefront({ storefrontToken: token });
    expect((await beacon(url, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(202);
    const shopper = { 'x-storefront-token': token, 'x-shopper-ip': '127.0.0.1' };
    expect(sessionRequests[0]?.headers).toMatchObject(shopper);
    expect(received[0]?.headers).toMatchObject({ ...shopper, 'x-forwarded-for': '198.51.100.7, 127.0.0.1' });

    const plain = await storefront();
    expect((await beacon(plain, { cookie: `shop_session=${SESSION}` })).status).toBe(202);
    expect(received[1]?.headers['x-storefront-token']).toBeUndefined();
    expect(received[1]?.headers['x-shopper-ip']).toBeUndefined();
  });

  it('starts X-Forwarded-For with the client address when nothing came before it, and sends no made-up user agent', async () => {
    const url = await storefront();
    await fetch(`${url}/api/track`, { method: 'POST', headers: { cookie: `shop_session=${SESSION}`, 'user-agent': '' }, body: EVENT });
    expect(received[0]?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(received[0]?.headers['user-agent']).toBe('');
  });

  it('asks the api for a new session when the browser has none, or one the api did not issue, and forwards its id', async () => {
    const url = await storefront();
    // The last one is what the storefront made up itself before the api issued sessions.
    for (const cookie of [undefined, 'shop_session=short', 'shop_session=a1b2c3d4-e5f6-4711-8899-aabbccddeeff']) {
      received.length = 0;
      sessionRequests.length = 0;
      const response = await beacon(url, {
        'x-forwarded-for': '198.51.100.7',
        'user-agent': 'Mozilla/5.0 (test)',
        ...(cookie === undefined ? {} : { cookie }),
      });
      expect(response.status).toBe(202);
      const id = ISSUED_COOKIE.exec(response.headers.get('set-cookie') ?? '')?.[1];
      expect(id).toBe(issuedId(issued));
      expect(sessionRequests).toHaveLength(1);
      expect(sessionRequests[0]).toMatchObject({ method: 'POST', url: '/graphql', body: JSON.stringify({ query: START_GUEST_SESSION }) });
      expect(sessionRequests[0]?.headers).toMatchObject({
        'content-type': 'application/json',
        'x-forwarded-for': '198.51.100.7, 127.0.0.1',
        'user-agent': 'Mozilla/5.0 (test)',
      });
      expect(received[0]?.headers['x-session-id']).toBe(id);
    }
  });

  it("passes the api's refusal to start a session through, and answers 502 when it fails, without relaying the beacon", async () => {
    sessionAnswer = {
      status: 429,
      headers: { 'retry-after': '3' },
      body: '{"data":null,"errors":[{"message":"slow down","extensions":{"code":"RATE_LIMITED"}}]}',
    };
    const failures: RelayFailure[] = [];
    const url = await storefront({ onFailure: (failure) => failures.push(failure) });
    const limited = await beacon(url);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(limited.headers.get('set-cookie')).toBeNull();
    sessionAnswer = { status: 500, body: '{}' };
    const failed = await beacon(url);
    expect(failed.status).toBe(502);
    expect(await failed.json()).toEqual({
      error: { code: 'BAD_GATEWAY', message: 'the api failed to start a guest session (status 500)' },
    });
    expect(failures).toEqual([{ status: 502, message: 'the api failed to start a guest session (status 500)' }]);
    expect(received).toEqual([]);
  });

  it('marks the cookie Secure behind HTTPS and follows the cookie options', async () => {
    const url = await storefront({ session: { name: 'sid', maxAgeSeconds: 600, domain: 'shop.example' } });
    const response = await beacon(url, { 'x-forwarded-proto': 'https' });
    expect(response.headers.get('set-cookie')).toMatch(
      /^sid=g1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Domain=shop\.example; Secure$/,
    );
  });

  it.each([
    [400, {}, '{"error":{"code":"BAD_REQUEST","message":"entity_id must be a positive integer id"}}'],
    [
      429,
      { 'retry-after': '7', 'ratelimit-policy': '"track";q=100;w=60', ratelimit: '"track";r=0;t=7' },
      '{"error":{"code":"RATE_LIMITED"}}',
    ],
    [503, { 'retry-after': '2' }, '{"error":{"code":"UNAVAILABLE","message":"the api is stopping; send the events again"}}'],
  ])("passes the api's %i through with its headers and body", async (status, headers: Record<string, string>, body) => {
    answer = { status, headers, body };
    const url = await storefront();
    const response = await beacon(url, { cookie: `shop_session=${SESSION}` });
    expect(response.status).toBe(status);
    expect(await response.text()).toBe(body);
    for (const [name, value] of Object.entries(headers)) expect(response.headers.get(name)).toBe(value);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('answers 502 when the api fails with another 5xx', async () => {
    answer = { status: 500, body: '{"error":{"code":"INTERNAL"}}' };
    const url = await storefront();
    const response = await beacon(url);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: { code: 'BAD_GATEWAY', message: 'the tracking api failed (status 500)' } });
  });

  it('answers 502 naming the api when it is unreachable, and reports it', async () => {
    const closed = createServer();
    const closedUrl = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const failures: RelayFailure[] = [];
    const url = await storefront({ apiUrl: closedUrl, onFailure: (failure) => failures.push(failure) });
    const started = Date.now();
    const response = await beacon(url, { cookie: `shop_session=${SESSION}` });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(response.status).toBe(502);
    const message = `the tracking api at ${closedUrl} is unreachable (ECONNREFUSED)`;
    expect(await response.json()).toEqual({ error: { code: 'BAD_GATEWAY', message } });
    // Without a session the relay asks the api for one first.
    const unsessioned = await beacon(url);
    const sessionMessage = `the api at ${closedUrl} is unreachable (ECONNREFUSED)`;
    expect(await unsessioned.json()).toEqual({ error: { code: 'BAD_GATEWAY', message: sessionMessage } });
    expect(unsessioned.headers.get('set-cookie')).toBeNull();
    expect(failures).toEqual([
      { status: 502, message, error: expect.any(Error) },
      { status: 502, message: sessionMessage, error: expect.any(Error) },
    ]);
  });

  it('asks the api once more for a session when it drops the connection, but never sends a beacon twice', async () => {
    const paths: string[] = [];
    let dropNext = true;
    const flaky = createNetServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        const path = chunk.toString('latin1').split(' ')[1] ?? '';
        paths.push(path);
        if (dropNext) {
          dropNext = false;
          socket.resetAndDestroy();
          return;
        }
        const isSession = path.endsWith('/graphql');
        const body = isSession ? JSON.stringify({ data: { startGuestSession: issuedId(99) } }) : '{"accepted":1}';
        socket.end(
          `HTTP/1.1 ${isSession ? '200 OK' : '202 Accepted'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      });
    });
    flaky.listen(0, '127.0.0.1');
    await once(flaky, 'listening');
    try {
      const url = await storefront({ apiUrl: `http://127.0.0.1:${(flaky.address() as AddressInfo).port}` });
      const first = await beacon(url);
      expect(first.status).toBe(202);
      expect(first.headers.get('set-cookie')).toContain(issuedId(99));
      expect(paths).toEqual(['/graphql', '/graphql', '/track']);

      dropNext = true;
      const dropped = await beacon(url, { cookie: `shop_session=${issuedId(99)}` });
      expect(dropped.status).toBe(502);
      expect(((await dropped.json()) as { error: { message: string } }).error.message).toMatch(
        /^the tracking api at .* is unreachable \((ECONNRESET|UND_ERR_SOCKET)\)$/,
      );
      expect(paths).toEqual(['/graphql', '/graphql', '/track', '/track']);
    } finally {
      await new Promise((resolve) => flaky.close(resolve));
    }
  });

  it('answers 504 when the api does not answer in time', async () => {
    answer = 'hang';
    const url = await storefront({ timeoutMs: 300 });
    const started = Date.now();
    const response = await beacon(url);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ error: { code: 'GATEWAY_TIMEOUT', message: 'the tracking api did not answer within 300 ms' } });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('keeps a path in the api URL', async () => {
    const url = await storefront({ apiUrl: `${apiUrl}/v1` });
    await beacon(url);
    expect(sessionRequests[0]?.url).toBe('/v1/graphql');
    expect(received[0]?.url).toBe('/v1/track');
  });

  it('refuses other methods with 405', async () => {
    const url = await storefront();
    const response = await fetch(`${url}/api/track`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(received).toEqual([]);
  });

  it('refuses a body over the limit with 413, announced or streamed, without calling the api', async () => {
    const url = await storefront({ bodyLimitBytes: 1_000 });
    const announced = await beacon(url, {}, 'x'.repeat(1_001));
    expect(announced.status).toBe(413);
    expect(sessionRequests).toEqual([]);
    expect(await announced.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'the body must be at most 1000 bytes' } });

    const streamed = await new Promise<number | undefined>((resolve, reject) => {
      const request = httpRequest(`${url}/api/track`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      request.on('error', reject);
      request.write('x'.repeat(800));
      setTimeout(() => request.end('x'.repeat(800)), 50);
    });
    expect(streamed).toBe(413);
    expect(received).toEqual([]);
  });

  it('uses a body a framework has already parsed', async () => {
    const relay = trackProxy({ apiUrl });
    const url = await storefront({}, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
        void relay(req, res);
      });
    });
    const response = await beacon(url);
    expect(response.status).toBe(202);
    expect(JSON.parse(received[0]?.body ?? '')).toEqual(JSON.parse(EVENT));
  });
});

describe('storefrontSession', () => {
  it('issues one cookie per request however often it is asked, and reads it back afterwards', async () => {
    const ids: (string | undefined)[] = [];
    const cookie = new SessionCookie({ apiUrl });
    const url = await storefront({}, (req, res) => {
      void Promise.all([storefrontSession(req, res, cookie), storefrontSession(req, res, cookie)]).then((both) => {
        ids.push(...both);
        res.end();
      });
    });
    const first = await fetch(url);
    const cookies = first.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    expect(sessionRequests).toHaveLength(1);
    expect(ids[0]).toBe(issuedId(issued));
    expect(ids[1]).toBe(ids[0]);
    const again = await fetch(url, { headers: { cookie: (cookies[0] ?? '').split(';')[0] ?? '' } });
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(ids[2]).toBe(ids[0]);
    expect(sessionRequests).toHaveLength(1);
  });

  it('answers undefined and sets no cookie when the api issues none', async () => {
    sessionAnswer = { status: 503, body: '{}' };
    let id: string | undefined = 'unset';
    const url = await storefront({}, (req, res) => {
      void storefrontSession(req, res, new SessionCookie({ apiUrl })).then((answered) => {
        id = answered;
        res.end();
      });
    });
    expect((await fetch(url)).headers.getSetCookie()).toEqual([]);
    expect(id).toBeUndefined();
  });
});

describe('the Fetch API adapter', () => {
  it('relays a Request and answers a Response with the session cookie', async () => {
    const handle = trackProxyFetch({ apiUrl });
    const response = await handle(
      new Request('https://shop.example/api/track', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.7' },
        body: EVENT,
      }),
      '203.0.113.9',
    );
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: 1 });
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/; Secure$/);
    expect(received[0]?.headers).toMatchObject({
      'x-forwarded-for': '198.51.100.7, 203.0.113.9',
      'x-session-id': /^shop_session=([^;]+)/.exec(setCookie)?.[1],
    });
    expect(received[0]?.body).toBe(EVENT);
  });

  it('answers 504 and 405 like the node:http relay', async () => {
    answer = 'hang';
    const handle = trackProxyFetch({ apiUrl, timeoutMs: 200 });
    const slow = await handle(
      new Request('http://shop.example/api/track', { method: 'POST', body: EVENT, headers: { cookie: `shop_session=${SESSION}` } }),
    );
    expect(slow.status).toBe(504);
    expect(slow.headers.get('set-cookie')).toBeNull();
    expect((await handle(new Request('http://shop.example/api/track'))).status).toBe(405);
  });
});
