// The storefront's side of the beacon: POST /api/track relayed to the api's POST /track, with the
// session taken from the storefront's cookie (issued by the api) and the client's address added to
// X-Forwarded-For. Framework-free: a node:http (req, res) handler, and a Fetch API (Request -> Response) adapter.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';

export interface SessionCookieOptions {
  /** Default `shop_session`. */
  readonly name?: string;
  /** Default 30 days. */
  readonly maxAgeSeconds?: number;
  /** Default: when the request came over HTTPS (TLS on the socket, or X-Forwarded-Proto: https). */
  readonly secure?: boolean;
  readonly domain?: string;
  /** Default `/`. */
  readonly path?: string;
}

/** How the storefront calls the api, for guest sessions and for beacons alike. */
export interface ApiCallOptions {
  /** The api's base URL: sessions come from its POST /graphql (`startGuestSession`), beacons go to its POST /track (`http://api:3000` -> `http://api:3000/track`). */
  readonly apiUrl: string | URL;
  /** How long the api may take to answer, in milliseconds. Default 5000. */
  readonly timeoutMs?: number;
  /** Told about every 502 and 504, for the storefront's logs. */
  readonly onFailure?: (failure: RelayFailure) => void;
  /**
   * A storefront access token (the api's createStorefrontToken), sent as X-Storefront-Token with the
   * shopper's address (the connection's peer) as X-Shopper-IP: the api then limits each shopper on
   * their own and the storefront by its BFF policy (docs/rate-limiting.md). None: limited by address.
   */
  readonly storefrontToken?: string;
}

/** Where and how the storefront asks the api for guest sessions, and what the cookie holding one looks like. */
export interface GuestSessionOptions extends ApiCallOptions {
  readonly cookie?: SessionCookieOptions;
}

/** An answer the storefront gave without the api: 502 (unreachable, failed) or 504 (too slow). */
export interface RelayFailure {
  readonly status: 502 | 504;
  readonly message: string;
  readonly error?: unknown;
}

export interface TrackRelayOptions extends ApiCallOptions {
  readonly session?: SessionCookieOptions;
  /** The largest body relayed, in bytes. Default 256 KiB, the api's own limit. */
  readonly bodyLimitBytes?: number;
}

/** What the relay needs of a browser's request, whatever the server framework. Header names in lower case. */
export interface BeaconRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Undefined when it was longer than the relay's bodyLimitBytes (and so not read to its end). */
  readonly body: Uint8Array | undefined;
  /** The address of the connection's peer, appended to X-Forwarded-For. */
  readonly clientAddress: string | undefined;
  /** Whether the request came over HTTPS, for the session cookie's Secure attribute. */
  readonly https: boolean;
}

export interface RelayAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: string;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;
const DEFAULT_COOKIE = 'shop_session';
const DEFAULT_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
/** What a session id the api issued looks like (startGuestSession); a cookie holding anything else is replaced with a new one. */
const SESSION_ID_PATTERN = /^g1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/;
/** The one GraphQL operation the relay sends: register it when the api runs GRAPHQL_PERSISTED_QUERIES=allowlist. */
export const START_GUEST_SESSION = 'mutation StartGuestSession { startGuestSession }';
/** The api's answers that reach the browser as they are, with these headers. */
const PASSED_HEADERS = ['content-type', 'retry-after', 'ratelimit-policy', 'ratelimit'];

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
const joined = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

function failure(status: 405 | 413 | 502 | 504, code: string, message: string, headers: Record<string, string> = {}): RelayAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify({ error: { code, message } }),
  };
}

/** `::ffff:198.51.100.7` (IPv4 on a dual-stack socket) as `198.51.100.7`; other addresses as they are. */
function plainAddress(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

/** The api's base URL ending in `/`, so that a path it has is kept (`…/v1` -> `…/v1/track`). */
function apiBase(apiUrl: string | URL): URL {
  const base = new URL(apiUrl);
  if (!base.pathname.endsWith('/')) base.pathname = `${base.pathname}/`;
  return base;
}

/** The incoming X-Forwarded-For with the connection's peer appended; undefined when there is neither. */
function forwardedFor(incoming: string | undefined, clientAddress: string | undefined): string | undefined {
  const chain = [incoming?.trim(), clientAddress === undefined ? undefined : plainAddress(clientAddress)]
    .filter((hop) => hop !== undefined && hop !== '')
    .join(', ');
  return chain === '' ? undefined : chain;
}

/** X-Storefront-Token and the shopper's address as X-Shopper-IP, when the storefront has a token; nothing otherwise. */
function bffHeaders(token: string | undefined, shopper: string | undefined): Record<string, string> {
  if (token === undefined) return {};
  return shopper === undefined ? { 'x-storefront-token': token } : { 'x-storefront-token': token, 'x-shopper-ip': plainAddress(shopper) };
}

/** An answer of the api, read whole. */
interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** The api's answer as the browser gets it: its status and body, with Retry-After and the RateLimit headers. */
function passThrough(answer: ApiAnswer): RelayAnswer {
  const passed: Record<string, string> = { 'cache-control': 'no-store' };
  for (const name of PASSED_HEADERS) {
    const value = answer.headers.get(name);
    if (value !== null) passed[name] = value;
  }
  return { status: answer.status, headers: passed, body: answer.text };
}

/** How fetch reports a connection the api closed before answering: a kept-alive one it had closed while idle, say. */
const DROPPED_CONNECTION = new Set(['ECONNRESET', 'UND_ERR_SOCKET']);

interface CallOptions {
  readonly timeoutMs: number;
  readonly what: string;
  readonly onFailure: ((failure: RelayFailure) => void) | undefined;
  /** Send once more, within the same time limit, when the connection was dropped: only for a call that is safe to repeat. */
  readonly retryDroppedConnection?: boolean;
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : String(cause?.message ?? (error as Error).message);
}

/**
 * One call to the api within `timeoutMs`: its response, or the 502 (unreachable) or 504 (too slow)
 * the browser gets instead, reported to `onFailure`. `what` names the api in messages.
 */
async function callApi(target: URL, init: RequestInit, options: CallOptions): Promise<ApiAnswer | RelayAnswer> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let attemptsLeft = options.retryDroppedConnection === true ? 2 : 1;
  for (;;) {
    attemptsLeft -= 1;
    try {
      const response = await fetch(target, { ...init, signal, redirect: 'manual' });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (error) {
      if (signal.aborted)
        return reportFailure(
          options.onFailure,
          504,
          'GATEWAY_TIMEOUT',
          `${options.what} did not answer within ${options.timeoutMs} ms`,
          error,
        );
      const reason = errorCode(error);
      if (attemptsLeft > 0 && DROPPED_CONNECTION.has(reason)) continue;
      return reportFailure(options.onFailure, 502, 'BAD_GATEWAY', `${options.what} at ${target.origin} is unreachable (${reason})`, error);
    }
  }
}

function reportFailure(
  onFailure: ((failure: RelayFailure) => void) | undefined,
  status: 502 | 504,
  code: string,
  message: string,
  error?: unknown,
): RelayAnswer {
  onFailure?.({ status, message, ...(error === undefined ? {} : { error }) });
  return failure(status, code, message);
}

/** The session id in startGuestSession's answer, when it holds one. */
function sessionIdIn(text: string): string | undefined {
  let id: unknown;
  try {
    id = (JSON.parse(text) as { data?: { startGuestSession?: unknown } } | null)?.data?.startGuestSession;
  } catch {
    return undefined;
  }
  return typeof id === 'string' && SESSION_ID_PATTERN.test(id) ? id : undefined;
}

/** What a session is for a request: the id, with the Set-Cookie value when it is new; or the answer to give when the api issued none. */
export type SessionOf = { readonly id: string; readonly setCookie?: string } | { readonly id?: undefined; readonly failed: RelayAnswer };

/**
 * The storefront's session cookie: read from a Cookie header, and when it is missing or holds no id
 * the api issued, a new id from the api's startGuestSession (the api refuses session ids it did not
 * issue, so a guest's cart cannot be reached by guessing one).
 */
export class SessionCookie {
  readonly name: string;
  readonly #cookie: SessionCookieOptions;
  readonly #target: URL;
  readonly #timeoutMs: number;
  readonly #onFailure: ((failure: RelayFailure) => void) | undefined;
  readonly #token: string | undefined;

  constructor(options: GuestSessionOptions) {
    this.#cookie = options.cookie ?? {};
    this.name = this.#cookie.name ?? DEFAULT_COOKIE;
    this.#target = new URL('graphql', apiBase(options.apiUrl));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#onFailure = options.onFailure;
    this.#token = options.storefrontToken;
  }

  /**
   * `forwardedFor` (and with a storefront token, `clientAddress` as X-Shopper-IP) is sent to the api,
   * so its rate limit counts the shopper rather than the storefront.
   */
  async of(request: {
    cookie: string | undefined;
    https: boolean;
    forwardedFor: string | undefined;
    clientAddress: string | undefined;
    userAgent: string | undefined;
  }): Promise<SessionOf> {
    for (const pair of (request.cookie ?? '').split(';')) {
      const separator = pair.indexOf('=');
      if (separator === -1 || pair.slice(0, separator).trim() !== this.name) continue;
      const value = pair.slice(separator + 1).trim();
      if (SESSION_ID_PATTERN.test(value)) return { id: value };
    }
    const issued = await this.#issue(request.forwardedFor, request.clientAddress, request.userAgent);
    if (typeof issued !== 'string') return { failed: issued };
    return { id: issued, setCookie: this.#serialize(issued, request.https) };
  }

  async #issue(
    forwarded: string | undefined,
    clientAddress: string | undefined,
    userAgent: string | undefined,
  ): Promise<string | RelayAnswer> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': userAgent ?? '',
      ...bffHeaders(this.#token, clientAddress),
    };
    if (forwarded !== undefined) headers['x-forwarded-for'] = forwarded;
    const what = 'the api';
    const response = await callApi(
      this.#target,
      { method: 'POST', headers, body: JSON.stringify({ query: START_GUEST_SESSION }) },
      {
        timeoutMs: this.#timeoutMs,
        what,
        onFailure: this.#onFailure,
        // A session the api issued but we never read is one unused id: asking again is harmless.
        retryDroppedConnection: true,
      },
    );
    if (!('text' in response)) return response;
    if (response.status !== 200) {
      if (response.status >= 500 && response.status !== 503)
        return reportFailure(this.#onFailure, 502, 'BAD_GATEWAY', `${what} failed to start a guest session (status ${response.status})`);
      return passThrough(response);
    }
    const id = sessionIdIn(response.text);
    if (id !== undefined) return id;
    return reportFailure(this.#onFailure, 502, 'BAD_GATEWAY', `${what} answered startGuestSession without a session id`);
  }

  #serialize(id: string, https: boolean): string {
    const options = this.#cookie;
    const parts = [
      `${this.name}=${id}`,
      `Path=${options.path ?? '/'}`,
      `Max-Age=${options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS}`,
      'HttpOnly',
      'SameSite=Lax',
    ];
    if (options.domain !== undefined) parts.push(`Domain=${options.domain}`);
    if (options.secure ?? https) parts.push('Secure');
    return parts.join('; ');
  }
}

/**
 * Relays beacons to the api's POST /track: X-Session-ID from the storefront's session cookie (issued
 * by the api when missing), X-Forwarded-For extended with the client's address (the api decides
 * which hops it believes: TRUSTED_PROXIES), the browser's User-Agent and any Authorization header,
 * and with a storefront token X-Storefront-Token and the client's address as X-Shopper-IP. The api's 2xx, 4xx and 503 answers pass through with Retry-After and the RateLimit headers; an
 * unreachable or failing api is a 502, a slow one a 504.
 */
export class TrackRelay {
  readonly session: SessionCookie;
  readonly bodyLimitBytes: number;
  readonly #target: URL;
  readonly #timeoutMs: number;
  readonly #onFailure: ((failure: RelayFailure) => void) | undefined;
  readonly #token: string | undefined;

  constructor(options: TrackRelayOptions) {
    this.#target = new URL('track', apiBase(options.apiUrl));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
    this.#onFailure = options.onFailure;
    this.#token = options.storefrontToken;
    this.session = new SessionCookie({
      apiUrl: options.apiUrl,
      timeoutMs: this.#timeoutMs,
      ...(options.session === undefined ? {} : { cookie: options.session }),
      ...(options.onFailure === undefined ? {} : { onFailure: options.onFailure }),
      ...(options.storefrontToken === undefined ? {} : { storefrontToken: options.storefrontToken }),
    });
  }

  get target(): string {
    return this.#target.toString();
  }

  async relay(request: BeaconRequest): Promise<RelayAnswer> {
    const { body } = request;
    if (body === undefined || body.byteLength > this.bodyLimitBytes) {
      return failure(413, 'PAYLOAD_TOO_LARGE', `the body must be at most ${this.bodyLimitBytes} bytes`, { connection: 'close' });
    }
    const forwarded = forwardedFor(joined(request.headers['x-forwarded-for']), request.clientAddress);
    const userAgent = first(request.headers['user-agent']);
    const session = await this.session.of({
      cookie: joined(request.headers.cookie),
      https: request.https,
      forwardedFor: forwarded,
      clientAddress: request.clientAddress,
      userAgent,
    });
    if (session.id === undefined) return session.failed;
    const answer = await this.#forward(request, body, session.id, forwarded, userAgent);
    if (session.setCookie === undefined) return answer;
    return { ...answer, headers: { ...answer.headers, 'set-cookie': session.setCookie } };
  }

  async #forward(
    request: BeaconRequest,
    body: Uint8Array,
    sessionId: string,
    forwarded: string | undefined,
    userAgent: string | undefined,
  ): Promise<RelayAnswer> {
    const headers: Record<string, string> = {
      'content-type': first(request.headers['content-type']) ?? 'application/json',
      'x-session-id': sessionId,
      // Without it fetch would send its own ("node"), and the api would record that as the browser.
      'user-agent': userAgent ?? '',
      ...bffHeaders(this.#token, request.clientAddress),
    };
    if (forwarded !== undefined) headers['x-forwarded-for'] = forwarded;
    const authorization = first(request.headers.authorization);
    if (authorization !== undefined) headers.authorization = authorization;

    const what = 'the tracking api';
    const response = await callApi(
      this.#target,
      { method: 'POST', headers, body },
      { timeoutMs: this.#timeoutMs, what, onFailure: this.#onFailure },
    );
    if (!('text' in response)) return response;
    if (response.status >= 500 && response.status !== 503)
      return reportFailure(this.#onFailure, 502, 'BAD_GATEWAY', `${what} failed (status ${response.status})`);
    return passThrough(response);
  }
}

/** Whether a node:http request came over HTTPS: TLS on the socket, or a proxy in front saying so. */
function isHttps(req: IncomingMessage): boolean {
  if ((req.socket as Partial<TLSSocket>).encrypted === true) return true;
  return first(req.headers['x-forwarded-proto'])?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** The body, read up to `limit` bytes; undefined past it. A body a framework has parsed already is used as it is. */
async function bodyOf(req: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (req.readableEnded && parsed !== undefined) {
    if (parsed instanceof Uint8Array) return parsed;
    return Buffer.from(typeof parsed === 'string' ? parsed : JSON.stringify(parsed));
  }
  if (Number(req.headers['content-length'] ?? 0) > limit) return undefined;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', reject);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // The rest is left unread: the 413 closes the connection.
      stop();
      req.pause();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

function send(res: ServerResponse, answer: RelayAnswer): void {
  for (const [name, value] of Object.entries(answer.headers)) {
    if (name === 'set-cookie') res.appendHeader(name, value);
    else res.setHeader(name, value);
  }
  res.writeHead(answer.status).end(answer.body);
}

/**
 * The storefront's session id for a node:http request, issuing the cookie on `res` when the browser
 * has none. Pages use it too, so the session exists before the first beacon and the storefront can
 * send the same X-Session-ID with its GraphQL calls (a guest's cart is found by it, and attribution
 * matches clicks to carts and orders by it). Undefined when the api could not issue one now
 * (`onFailure` heard why, or it refused with a 4xx or 503); the next request asks again.
 */
export function storefrontSession(req: IncomingMessage, res: ServerResponse, cookie: SessionCookie): Promise<string | undefined> {
  let session = sessions.get(req);
  if (session === undefined) {
    session = sessionOf(req, res, cookie);
    sessions.set(req, session);
  }
  return session;
}

/** Asked twice during one request, storefrontSession answers the same id and sets one cookie. */
const sessions = new WeakMap<IncomingMessage, Promise<string | undefined>>();

async function sessionOf(req: IncomingMessage, res: ServerResponse, cookie: SessionCookie): Promise<string | undefined> {
  const forwarded = forwardedFor(joined(req.headers['x-forwarded-for']), req.socket.remoteAddress);
  const session = await cookie.of({
    cookie: req.headers.cookie,
    https: isHttps(req),
    forwardedFor: forwarded,
    clientAddress: req.socket.remoteAddress,
    userAgent: first(req.headers['user-agent']),
  });
  if (session.id === undefined) return undefined;
  if (session.setCookie !== undefined) res.appendHeader('set-cookie', session.setCookie);
  return session.id;
}

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** POST /api/track for node:http (and Express, Fastify's raw req/res, ...): mount it at the beacon's endpoint. */
export function trackProxy(options: TrackRelayOptions): NodeHandler {
  const relay = new TrackRelay(options);
  return async (req, res) => {
    if (req.method !== 'POST') {
      send(res, failure(405, 'METHOD_NOT_ALLOWED', 'use POST', { allow: 'POST' }));
      return;
    }
    let body: Uint8Array | undefined;
    try {
      body = await bodyOf(req, relay.bodyLimitBytes);
    } catch {
      // The browser went away while sending: nobody is left to answer.
      res.destroy();
      return;
    }
    send(res, await relay.relay({ headers: req.headers, body, clientAddress: req.socket.remoteAddress, https: isHttps(req) }));
  };
}

/**
 * POST /api/track for frameworks built on the Fetch API (route handlers taking a Request and returning
 * a Response). `clientAddress` is the connection's peer as the framework knows it.
 */
export function trackProxyFetch(options: TrackRelayOptions): (request: Request, clientAddress?: string) => Promise<Response> {
  const relay = new TrackRelay(options);
  return async (request, clientAddress) => {
    const toResponse = (answer: RelayAnswer): Response => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) for (const item of [value].flat()) headers.append(name, item);
      return new Response(answer.body, { status: answer.status, headers });
    };
    if (request.method !== 'POST') return toResponse(failure(405, 'METHOD_NOT_ALLOWED', 'use POST', { allow: 'POST' }));
    const headers = Object.fromEntries(request.headers);
    const https =
      new URL(request.url).protocol === 'https:' || headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase() === 'https';
    const body = Number(headers['content-length'] ?? 0) > relay.bodyLimitBytes ? undefined : new Uint8Array(await request.arrayBuffer());
    return toResponse(await relay.relay({ headers, body, clientAddress, https }));
  };
}
