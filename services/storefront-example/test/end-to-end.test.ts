// Chromium -> the example storefront (its own process) -> the api (its own process) -> PostgreSQL.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/infra/isolation.ts';
import { spawnService, type ServiceProcess } from '../../../test/support/service-process.ts';
import { readUntil } from '../../../test/support/wait.ts';
import { runApi } from '../../api/test/support/run-api.ts';
import { storedEvents, type StoredEvent } from '../../api/test/support/tracking.ts';
import { launchChromium } from '../../beacon/test/support/chromium.ts';

const STOREFRONT_MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const MIGRATE = path.resolve(import.meta.dirname, '../../platform/src/db/migrations/cli.ts');
const SEED = path.resolve(import.meta.dirname, '../../api/src/seed.ts');
const ADMIN = { email: 'admin@storefront.test', password: 'admin-password-1' };

let database: TestDatabase;
let pool: pg.Pool;
let api: ServiceProcess;
let storefront: ServiceProcess;
let apiUrl: string;
let staff: Record<string, string>;
let storefrontUrl: string;
let browser: Browser;
const contexts: BrowserContext[] = [];

async function stop(service: ServiceProcess | undefined): Promise<void> {
  if (service === undefined || service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGTERM');
  await service.exited();
}

beforeAll(async () => {
  const launching = launchChromium();
  database = await createTestDatabase('storefront_e2e');
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: database.url };
  await promisify(execFile)(process.execPath, [MIGRATE, 'deploy'], { env });
  await promisify(execFile)(process.execPath, [SEED], {
    env: { ...env, SEED_ADMIN_EMAIL: ADMIN.email, SEED_ADMIN_PASSWORD: ADMIN.password },
  });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // The storefront is the api's only caller here: it is the proxy whose X-Forwarded-For the api believes.
  api = runApi({ NODE_ENV: 'test', PORT: '0', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl'), TRUSTED_PROXIES: '127.0.0.1' });
  apiUrl = await api.listening();
  // The storefront sends the api a storefront access token, created by staff as in production.
  const { loginStaff } = await graphql<{ loginStaff: { accessToken: string } }>(
    'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }',
    ADMIN,
  );
  staff = { authorization: `Bearer ${loginStaff.accessToken}` };
  const { createStorefrontToken } = await graphql<{ createStorefrontToken: { token: string } }>(
    'mutation { createStorefrontToken(name: "example storefront") { token } }',
    {},
    staff,
  );
  storefront = spawnService(STOREFRONT_MAIN, { API_URL: apiUrl, PORT: '0', STOREFRONT_TOKEN: createStorefrontToken.token });
  storefrontUrl = await storefront.listening();
  browser = await launching;
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  await browser?.close();
  await Promise.all([stop(storefront), stop(api)]);
  await pool?.end();
  await database?.drop();
});

/** POST /graphql to the api; the data, or the test fails. */
async function graphql<T>(query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  if (body.data == null || body.errors !== undefined)
    throw new Error(`GraphQL failed (${response.status}): ${JSON.stringify(body.errors)}`);
  return body.data;
}

async function openStorefront(headers: Record<string, string> = {}): Promise<{ page: Page; session: string }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, extraHTTPHeaders: headers });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${storefrontUrl}/`);
  await page.waitForFunction('window.shopBeacon !== undefined');
  const cookie = (await context.cookies()).find((candidate) => candidate.name === 'shop_session');
  if (cookie === undefined) throw new Error('the storefront set no session cookie');
  return { page, session: cookie.value };
}

/** The session's stored events once `done` holds for them (or after `timeoutMs`). */
async function eventsWhen(session: string, done: (events: StoredEvent[]) => boolean, timeoutMs = 10_000): Promise<StoredEvent[]> {
  return readUntil(() => storedEvents(pool, session, 0), done, { timeoutMs, intervalMs: 100 });
}

const named = (events: StoredEvent[], type: string): string[] =>
  events.filter((event) => event.event_type === type).map((event) => `${event.entity_type}:${event.entity_id}`);

describe('a shopper on the example storefront', () => {
  it('is recorded with the storefront session and address, and a second click on the same hero is a repeat', async () => {
    // A load balancer in front of the storefront says who the shopper is; the storefront appends itself.
    const { page, session } = await openStorefront({ 'x-forwarded-for': '198.51.100.7' });
    // The session cookie holds an id the api issued, which its GraphQL takes as X-Session-ID.
    const graphql = await fetch(`${apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': session },
      body: '{"query":"{ health }"}',
    });
    expect(graphql.status).toBe(200);

    const seen = await eventsWhen(session, (events) => named(events, 'impression').includes('hero:1'));
    expect(named(seen, 'impression')).toEqual(expect.arrayContaining(['hero:1', 'slide:101']));
    expect(named(seen, 'impression')).not.toContain('banner:201');

    // The hero is a link: each click leaves the page, and the beacon still gets through.
    for (let click = 0; click < 2; click += 1) {
      await Promise.all([page.waitForEvent('load'), page.click('a.hero')]);
    }
    const events = await eventsWhen(session, (stored) => named(stored, 'click').length >= 2);
    const clicks = events.filter((event) => event.event_type === 'click');
    expect(clicks.map((event) => [event.entity_type, event.entity_id, event.is_repeat])).toEqual([
      ['hero', '1', false],
      ['hero', '1', true],
    ]);
    expect(clicks.map((event) => event.page_url)).toEqual([`${storefrontUrl}/`, `${storefrontUrl}/?from=hero-1`]);
    for (const event of events) {
      expect(event).toMatchObject({ session_id: session, ip_address: '198.51.100.7', is_authenticated: false, user_id: null });
      expect(event.user_agent).toContain('HeadlessChrome');
    }
    expect(events.filter((event) => event.event_type === 'impression').every((event) => !event.is_repeat)).toBe(true);
  });

  it("reaches the api as the storefront's BFF: charged to the token's policy and to the shopper, the token's use recorded", async () => {
    const response = await fetch(`${storefrontUrl}/api/track`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'click', entity_type: 'hero', entity_id: '1', page_url: `${storefrontUrl}/` }),
    });
    expect(response.status).toBe(202);
    expect(response.headers.get('ratelimit-policy')).toBe('"bff:track";q=1200;w=6, "track";q=120;w=6');
    await expect
      .poll(
        async () =>
          (await graphql<{ storefrontTokens: { lastUsedAt: string | null }[] }>('{ storefrontTokens { lastUsedAt } }', {}, staff))
            .storefrontTokens[0]?.lastUsedAt,
      )
      .toEqual(expect.any(String));
  });

  it('is recorded by its own address without a proxy in front, with banners counted once scrolled into view', async () => {
    const { page, session } = await openStorefront();
    await eventsWhen(session, (events) => named(events, 'impression').includes('hero:1'));
    await page.locator('a.banner').first().scrollIntoViewIfNeeded();
    const events = await eventsWhen(session, (stored) => named(stored, 'impression').includes('banner:201'));
    expect(named(events, 'impression')).toContain('banner:201');
    expect(new Set(events.map((event) => event.ip_address))).toEqual(new Set(['127.0.0.1']));
    expect(new Set(events.map((event) => event.session_id))).toEqual(new Set([session]));

    await page.click('a.banner >> nth=0');
    const clicked = await eventsWhen(session, (stored) => named(stored, 'click').length >= 1);
    expect(clicked.filter((event) => event.event_type === 'click').map((event) => [event.entity_id, event.is_repeat])).toEqual([
      ['201', false],
    ]);
  });

  it('gets a clear 502 from a storefront whose api is unreachable', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const orphan = spawnService(STOREFRONT_MAIN, { API_URL: `http://127.0.0.1:${port}`, PORT: '0' });
    try {
      const url = await orphan.listening();
      const response = await fetch(`${url}/api/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event_type: 'click', entity_type: 'hero', entity_id: '1', page_url: `${url}/` }),
      });
      expect(response.status).toBe(502);
      // A browser without a session: the storefront asks the api for one first.
      const message = `the api at http://127.0.0.1:${port} is unreachable (ECONNREFUSED)`;
      expect(await response.json()).toEqual({ error: { code: 'BAD_GATEWAY', message } });
      // The log line travels through the child's stdout: it may arrive after the response.
      await expect.poll(() => orphan.output()).toContain(`beacon relay: 502 ${message}`);
    } finally {
      await stop(orphan);
    }
  });
});
