import { randomInt } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import {
  MemoryCache,
  RateLimiter,
  RedisCache,
  applyMigrations,
  createLogger,
  loadConfig,
  openPlatform,
  staticRateLimitPolicies,
  tokenBucketStoreFor,
  type Cache,
  type Platform,
  type RateLimitPolicy,
} from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { waitFor } from '../../../../test/support/wait.ts';
import { answerErrorsAsJson } from '../../src/http/errors.ts';
import { rateLimit } from '../../src/http/rate-limit/index.ts';
import { trackingRoutes } from '../../src/tracking/routes.ts';
import { newEntityId, newSession, storedEvents, track } from '../support/tracking.ts';

// POST /track spends its rate-limit token in its handler, in the same cache round trip as its clicks'
// repeat keys (ChargeAndClaim): these tests hold it to what the onRequest charge guaranteed, on Redis
// (one Lua script) and on the in-process cache (the embedded default), against real PostgreSQL.

const logger = createLogger({ level: 'ERROR', service: 'test' });
let database: TestDatabase;
let platform: Platform;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  database = await createTestDatabase('track_rate_limit');
  await applyMigrations(database.url);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') });
  platform = await openPlatform(config, logger, 'test');
  // The platform connects to Redis in the background; until then every charge would fail open.
  await waitFor(
    () =>
      platform.cache.ping().then(
        () => true,
        () => false,
      ),
    10_000,
    'the cache to answer',
    20,
  );
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await platform?.close();
  await database?.drop();
});

const pool = () => platform.database.pool;
const policy = (capacity: number, refillPerSecond = 0.01, enabled = true): RateLimitPolicy => ({
  key: 'track',
  capacity,
  refillPerSecond,
  enabled,
});
/** A client address of its own: buckets live in the Redis every test file shares. */
const newAddress = (): string => `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const click = (entityId: number) => ({ event_type: 'click', entity_type: 'banner', entity_id: entityId, page_url: '/' });

/** /track as the api wires it (rateLimit's track policy, then trackingRoutes) over `cache`, writing to PostgreSQL. */
async function trackApp(cache: Cache, trackPolicy: RateLimitPolicy, registry = new Registry()): Promise<FastifyInstance> {
  const app = Fastify();
  answerErrorsAsJson(app);
  const limiter = new RateLimiter({
    store: tokenBucketStoreFor(cache),
    policies: staticRateLimitPolicies([trackPolicy]),
    metrics: registry,
    logger,
  });
  rateLimit(app, { limiter, routePolicies: { '/track': 'track' } });
  trackingRoutes(app, { ...platform, cache, metrics: registry });
  await app.ready();
  apps.push(app);
  return app;
}

async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((candidate) => candidate.name === name);
  const values = (metric?.values ?? []) as { value: number; labels: Record<string, string | number> }[];
  return values.find((value) => Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted))?.value ?? 0;
}

const caches: [string, () => Cache][] = [
  ['Redis', () => platform.cache],
  ['the in-process cache', () => new MemoryCache()],
];

describe.each(caches)('POST /track rate limited over %s', (_name, cacheOf) => {
  it('refuses a click over the limit with 429, Retry-After and RateLimit headers, stores nothing of it and leaves no repeat key', async () => {
    const registry = new Registry();
    const app = await trackApp(cacheOf(), policy(1), registry);
    const session = newSession();
    const [first, refused] = [newEntityId(), newEntityId()];
    const address = newAddress();

    const allowed = await track(app, { session, body: click(first), remoteAddress: address });
    expect(allowed.statusCode).toBe(202);
    expect(allowed.headers['ratelimit-policy']).toBe('"track";q=1;w=100');
    expect(allowed.headers['ratelimit']).toBe('"track";r=0;t=100');

    const limited = await track(app, { session, body: click(refused), remoteAddress: address });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('100');
    expect(limited.headers['ratelimit-policy']).toBe('"track";q=1;w=100');
    expect(limited.headers['ratelimit']).toBe('"track";r=0;t=100');
    expect(limited.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests (rate limit "track"): retry in 100 s' } });
    expect(await sample(registry, 'rate_limit_decisions_total', { policy: 'track', result: 'allowed' })).toBe(1);
    expect(await sample(registry, 'rate_limit_decisions_total', { policy: 'track', result: 'limited' })).toBe(1);

    // The same session from other addresses (buckets of their own): the refused click left no key, so
    // clicking that entity now is a first click; the allowed one did, so clicking it again is a repeat.
    expect((await track(app, { session, body: click(refused), remoteAddress: newAddress() })).statusCode).toBe(202);
    expect((await track(app, { session, body: click(first), remoteAddress: newAddress() })).statusCode).toBe(202);
    const stored = await storedEvents(pool(), session, 3);
    expect(stored.map((row) => [row.entity_id, row.is_repeat])).toEqual([
      [String(first), false],
      [String(refused), false],
      [String(first), true],
    ]);
  });

  it('lets exactly capacity of many concurrent clicks through, and exactly one of those is the first', async () => {
    const app = await trackApp(cacheOf(), policy(10, 0.001));
    const session = newSession();
    const entity = newEntityId();
    const address = newAddress();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => track(app, { session, body: click(entity), remoteAddress: address })),
    );
    expect(responses.filter((response) => response.statusCode === 202)).toHaveLength(10);
    expect(responses.filter((response) => response.statusCode === 429)).toHaveLength(20);
    const stored = await storedEvents(pool(), session, 10);
    expect(stored).toHaveLength(10);
    expect(stored.filter((row) => !row.is_repeat)).toHaveLength(1);
  });

  it('charges refused bodies too (unparseable, too large, wrong type, no session, invalid): each spends a token, and over the limit it is 429', async () => {
    const registry = new Registry();
    const app = await trackApp(cacheOf(), policy(5), registry);
    const remoteAddress = newAddress();
    const send = (request: Parameters<typeof track>[1]) => track(app, { remoteAddress, ...request });
    const rejected = (reason: string) => sample(registry, 'tracking_events_rejected_total', { reason });

    expect((await send({ session: newSession(), payload: '{"event_type":' })).statusCode).toBe(400);
    expect((await send({ session: newSession(), body: { ...click(1), page_url: 'x'.repeat(300 * 1024) } })).statusCode).toBe(413);
    expect((await send({ session: newSession(), payload: '<click/>', headers: { 'content-type': 'application/xml' } })).statusCode).toBe(
      415,
    );
    expect((await send({ session: null, body: click(1) })).statusCode).toBe(400);
    expect((await send({ session: newSession(), body: { ...click(1), entity_type: 'popup' } })).statusCode).toBe(400);
    const counted = { invalid_body: 2, body_too_large: 1, unsupported_media_type: 1, missing_session_id: 1 };
    for (const [reason, count] of Object.entries(counted)) expect(await rejected(reason)).toBe(count);

    // The bucket is empty: whatever the body, 429, and the refusal is no rejected event.
    const session = newSession();
    for (const request of [
      { session, body: click(1) },
      { session, payload: '{"event_type":' },
      { session: null, body: click(1) },
    ]) {
      const response = await send(request);
      expect(response.statusCode).toBe(429);
      expect(response.headers['retry-after']).toBeDefined();
    }
    for (const [reason, count] of Object.entries(counted)) expect(await rejected(reason)).toBe(count);
    expect(await storedEvents(pool(), session, 1, 300)).toEqual([]);
  });

  it('limits nothing under a disabled policy, sends no RateLimit headers, and still tells repeats', async () => {
    const app = await trackApp(cacheOf(), policy(1, 0.01, false));
    const session = newSession();
    const entity = newEntityId();
    const remoteAddress = newAddress();
    const responses = [];
    for (let i = 0; i < 3; i += 1) responses.push(await track(app, { session, body: click(entity), remoteAddress }));
    expect(responses.map((response) => response.statusCode)).toEqual([202, 202, 202]);
    expect(responses[0]?.headers['ratelimit-policy']).toBeUndefined();
    expect((await storedEvents(pool(), session, 3)).map((row) => row.is_repeat)).toEqual([false, true, true]);
  });
});

describe('POST /track over Redis, one charge failing', () => {
  it('fails open for that request alone: concurrent ones are still limited', async () => {
    const registry = new Registry();
    const app = await trackApp(platform.cache, policy(1), registry);
    const [broken, sound] = [newAddress(), newAddress()];
    // A bucket key holding a string: Redis refuses the charge's HMGET (WRONGTYPE).
    await platform.cache.set(`rate-limit:track:${broken}`, 'not a bucket', 60);
    const responses = await Promise.all(
      [broken, sound, sound].map((remoteAddress) => track(app, { session: newSession(), body: click(newEntityId()), remoteAddress })),
    );
    const [failedOpen, ...limited] = responses;
    expect(failedOpen?.statusCode).toBe(202);
    expect(failedOpen?.headers['ratelimit']).toBeUndefined();
    expect(failedOpen?.headers['ratelimit-policy']).toBe('"track";q=1;w=100');
    // Of the two from the sound address, whichever was charged first got the one token.
    expect(limited.map((response) => response.statusCode).sort()).toEqual([202, 429]);
    expect(limited.map((response) => response.headers['ratelimit'])).toEqual(['"track";r=0;t=100', '"track";r=0;t=100']);
    expect(await sample(registry, 'rate_limit_decisions_total', { policy: 'track', result: 'fail_open' })).toBe(1);
  });
});

describe('POST /track when the cache is down', () => {
  it('fails open (202, RateLimit-Policy without RateLimit, counted as fail_open) and lets the database decide is_repeat', async () => {
    const cache = new RedisCache('redis://127.0.0.1:1', logger);
    cache.connect();
    try {
      const registry = new Registry();
      const app = await trackApp(cache, policy(1), registry);
      const session = newSession();
      const entity = newEntityId();
      const first = await track(app, { session, body: click(entity) });
      expect(first.statusCode).toBe(202);
      expect(first.headers['ratelimit-policy']).toBe('"track";q=1;w=100');
      expect(first.headers['ratelimit']).toBeUndefined();
      // Written before the next click: the batch INSERT finds it.
      expect(await storedEvents(pool(), session, 1)).toHaveLength(1);
      expect((await track(app, { session, body: click(entity) })).statusCode).toBe(202);

      const stored = await storedEvents(pool(), session, 2);
      expect(stored.map((row) => row.is_repeat)).toEqual([false, true]);
      expect(await sample(registry, 'rate_limit_decisions_total', { policy: 'track', result: 'fail_open' })).toBe(2);
      expect(await sample(registry, 'tracking_repeat_check_fallbacks_total', { reason: 'cache_error' })).toBe(2);
    } finally {
      await cache.close();
    }
  });
});
