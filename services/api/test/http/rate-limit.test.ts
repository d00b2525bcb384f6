import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import mercurius from 'mercurius';
import { Registry } from 'prom-client';
import {
  MemoryCache,
  RateLimiter,
  RedisCache,
  applyMigrations,
  createLogger,
  loadConfig,
  openDatabase,
  openRateLimiter,
  type Database,
  tokenBucketStoreFor,
  type Cache,
  type RateLimitPolicy,
  type TokenBucketStore,
} from '@shop/platform';
import { createTestDatabase, uniqueName, type TestDatabase } from '../../../../test/infra/isolation.ts';
import {
  CallerRefused,
  graphqlMutationCharges,
  rateLimit,
  type BffResolver,
  type RateLimitOptions,
} from '../../src/http/rate-limit/index.ts';

const logger = createLogger({ level: 'ERROR', service: 'test' });

/** Policies the test sets per app; keys are the real ones, each app has its own key prefix in the store. */
function policyMap(...policies: RateLimitPolicy[]) {
  const byKey = new Map(policies.map((policy) => [policy.key, policy]));
  return { get: (key: string) => byKey.get(key), set: (policy: RateLimitPolicy) => byKey.set(policy.key, policy) };
}
const policy = (key: string, capacity: number, refillPerSecond = 0.01, enabled = true): RateLimitPolicy => ({
  key,
  capacity,
  refillPerSecond,
  enabled,
});

const typeDefs = `
  type Query { ok: Boolean }
  type Mutation { captureLead(email: String!): Boolean, registerCustomer: Boolean, logout: Boolean, loginCustomer(email: String!, password: String!): Boolean, placeOrder: Boolean }
`;

/** An app shaped like the api: /track (REST), /health (not limited) and /graphql, wired as docs/rate-limiting.md says. */
async function buildTestApp(limiter: RateLimiter, overrides: Partial<RateLimitOptions> = {}): Promise<FastifyInstance> {
  const app = Fastify({ trustProxy: true });
  rateLimit(app, {
    limiter,
    routePolicies: { '/track': 'track', '/graphql': 'graphql' },
    bodyPoliciesFor: graphqlMutationCharges({
      limiter,
      schema: () => app.graphql.schema,
      sessionOf: (request) => request.headers['x-session'] as string | undefined,
    }),
    ...overrides,
  });
  app.post('/track', async (_request, reply) => reply.code(202).send());
  app.get('/health', async () => ({ status: 'ok' }));
  await app.register(mercurius, {
    schema: typeDefs,
    resolvers: {
      Query: { ok: () => true },
      Mutation: {
        captureLead: () => true,
        registerCustomer: () => true,
        logout: () => true,
        loginCustomer: () => false,
        placeOrder: () => true,
      },
    },
  });
  await app.ready();
  return app;
}

const track = (app: FastifyInstance, ip = '198.51.100.1') => app.inject({ method: 'POST', url: '/track', remoteAddress: ip });
const graphql = (app: FastifyInstance, query: string, extra: Record<string, unknown> = {}, ip = '198.51.100.1') =>
  app.inject({ method: 'POST', url: '/graphql', payload: { query, ...extra }, remoteAddress: ip });
const statuses = (responses: ReadonlyArray<{ statusCode: number }>) => responses.map((response) => response.statusCode);

function pluginContract(name: string, openCache: () => Promise<Cache>) {
  describe(`rateLimit over ${name}`, () => {
    let cache: Cache;
    let store: TokenBucketStore;
    const apps: FastifyInstance[] = [];

    beforeAll(async () => {
      cache = await openCache();
      store = tokenBucketStoreFor(cache);
    });
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.close()));
      await store?.close();
      await cache?.close();
    });

    async function appWith(policies: ReturnType<typeof policyMap>, overrides: Partial<RateLimitOptions> = {}) {
      const limiter = new RateLimiter({ store, policies, metrics: new Registry(), logger, keyPrefix: uniqueName('rl') });
      const app = await buildTestApp(limiter, overrides);
      apps.push(app);
      return app;
    }

    it('allows a burst up to capacity with the remaining count, then answers 429 with Retry-After and the error body', async () => {
      const app = await appWith(policyMap(policy('track', 3, 0.1)));
      const allowed = [await track(app), await track(app), await track(app)];
      expect(statuses(allowed)).toEqual([202, 202, 202]);
      expect(allowed.map((response) => response.headers['ratelimit'])).toEqual([
        '"track";r=2;t=10',
        '"track";r=1;t=20',
        '"track";r=0;t=30',
      ]);
      expect(allowed[0]?.headers['ratelimit-policy']).toBe('"track";q=3;w=30');
      expect(allowed[0]?.headers['retry-after']).toBeUndefined();

      const limited = await track(app);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBe('10');
      expect(limited.headers['ratelimit-policy']).toBe('"track";q=3;w=30');
      expect(limited.headers['ratelimit']).toBe('"track";r=0;t=10');
      expect(limited.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests (rate limit "track"): retry in 10 s' } });
    });

    it('charges the route the router matched, however the path is spelled', async () => {
      const app = await appWith(policyMap(policy('track', 2), policy('graphql', 100), policy('graphql:captureLead', 1)));
      const send = (url: string) => app.inject({ method: 'POST', url, remoteAddress: '198.51.100.20' });
      expect(statuses([await send('/track'), await send('/tr%61ck'), await send('/%74rack')])).toEqual([202, 202, 429]);
      const lead = (url: string) =>
        app.inject({ method: 'POST', url, payload: { query: 'mutation { captureLead(email: "a@b.c") }' }, remoteAddress: '198.51.100.20' });
      expect((await lead('/gr%61phql')).statusCode).toBe(200);
      const refused = await lead('/graphql');
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['ratelimit']).toBe('"graphql";r=98;t=200, "graphql:captureLead";r=0;t=100');
    });

    it('leaves routes without a policy alone', async () => {
      const app = await appWith(policyMap(policy('track', 1)));
      const responses = await Promise.all(Array.from({ length: 5 }, () => app.inject({ method: 'GET', url: '/health' })));
      expect(statuses(responses)).toEqual([200, 200, 200, 200, 200]);
      expect(responses[0]?.headers['ratelimit-policy']).toBeUndefined();
    });

    it('limits nothing under a disabled policy and sends no headers', async () => {
      const app = await appWith(policyMap(policy('track', 1, 0.01, false)));
      const responses = await Promise.all(Array.from({ length: 10 }, () => track(app)));
      expect(statuses(responses).every((status) => status === 202)).toBe(true);
      expect(responses[0]?.headers['ratelimit']).toBeUndefined();
    });

    it('keeps a bucket per client IP: the socket address, or the first X-Forwarded-For address', async () => {
      const app = await appWith(policyMap(policy('track', 2)));
      expect(statuses([await track(app, '198.51.100.7'), await track(app, '198.51.100.7'), await track(app, '198.51.100.7')])).toEqual([
        202, 202, 429,
      ]);
      expect((await track(app, '198.51.100.8')).statusCode).toBe(202);
      const viaProxy = (forwarded: string) =>
        app.inject({ method: 'POST', url: '/track', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': forwarded } });
      expect(statuses([await viaProxy('203.0.113.5, 10.0.0.1'), await viaProxy('203.0.113.5'), await viaProxy('203.0.113.5')])).toEqual([
        202, 202, 429,
      ]);
      expect((await viaProxy('203.0.113.6, 10.0.0.1')).statusCode).toBe(202);
    });

    it('never allows more than capacity to 50 concurrent requests', async () => {
      const app = await appWith(policyMap(policy('track', 10, 0.001)));
      const responses = await Promise.all(Array.from({ length: 50 }, () => track(app)));
      expect(statuses(responses).filter((status) => status === 202)).toHaveLength(10);
      expect(statuses(responses).filter((status) => status === 429)).toHaveLength(40);
    });

    describe('BFFs', () => {
      /** `x-bff: <id>` names a BFF, `x-shopper` its shopper; `x-bff: revoked` is refused. */
      const bff: BffResolver = async (request) => {
        const id = request.headers['x-bff'];
        if (typeof id !== 'string') return undefined;
        if (id === 'revoked') throw new CallerRefused(401, 'that BFF is gone');
        const shopper = request.headers['x-shopper'];
        return { id, shopper: typeof shopper === 'string' ? shopper : undefined };
      };
      const send = (app: FastifyInstance, url: string, headers: Record<string, string>) =>
        app.inject({
          method: 'POST',
          url,
          headers,
          remoteAddress: '198.51.100.20',
          ...(url === '/graphql' ? { payload: { query: '{ ok }' } } : {}),
        });

      it("charges a BFF's own bucket, and the path's policy only per shopper it names", async () => {
        const app = await appWith(policyMap(policy('graphql', 2), policy('bff:graphql', 5)), { bff });
        const own = await send(app, '/graphql', { 'x-bff': 'a' });
        expect(own.headers['ratelimit-policy']).toBe('"bff:graphql";q=5;w=500');
        const forShopper = (shopper: string) => send(app, '/graphql', { 'x-bff': 'a', 'x-shopper': shopper });
        expect(statuses([await forShopper('203.0.113.1'), await forShopper('203.0.113.1'), await forShopper('203.0.113.1')])).toEqual([
          200, 200, 429,
        ]);
        expect((await forShopper('203.0.113.2')).headers['ratelimit']).toBe('"bff:graphql";r=0;t=500, "graphql";r=1;t=100');
        expect((await forShopper('203.0.113.3')).statusCode).toBe(429);
        // Another BFF, and the address itself, have buckets of their own.
        expect((await send(app, '/graphql', { 'x-bff': 'b', 'x-shopper': '203.0.113.1' })).statusCode).toBe(429);
        expect((await send(app, '/graphql', {})).statusCode).toBe(200);
      });

      it('answers what the resolver refuses with its status, before charging anything', async () => {
        const app = await appWith(policyMap(policy('track', 1), policy('bff:track', 1)), { bff });
        const refused = await send(app, '/track', { 'x-bff': 'revoked' });
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'that BFF is gone' } });
        expect(refused.headers['ratelimit-policy']).toBeUndefined();
        expect((await send(app, '/graphql', { 'x-bff': 'revoked' })).json()).toEqual({
          errors: [{ message: 'that BFF is gone', extensions: { code: 'UNAUTHENTICATED' } }],
        });
      });
    });

    describe('GraphQL', () => {
      it('charges each mutation field with a policy, by field name whatever the operation is called', async () => {
        const app = await appWith(policyMap(policy('graphql', 100), policy('graphql:captureLead', 2)));
        const lead = 'mutation Anything { captureLead(email: "a@b.c") }';
        expect(statuses([await graphql(app, lead), await graphql(app, lead.replace('Anything', 'Renamed'))])).toEqual([200, 200]);

        const limited = await graphql(app, lead);
        expect(limited.statusCode).toBe(429);
        expect(limited.headers['ratelimit-policy']).toBe('"graphql";q=100;w=10000, "graphql:captureLead";q=2;w=200');
        expect(limited.headers['ratelimit']).toBe('"graphql";r=97;t=300, "graphql:captureLead";r=0;t=100');
        expect(limited.headers['retry-after']).toBe('100');
        expect(limited.json()).toEqual({
          errors: [
            { message: 'Too many requests (rate limit "graphql:captureLead"): retry in 100 s', extensions: { code: 'RATE_LIMITED' } },
          ],
        });

        // Queries and mutations without a policy of their own spend only the graphql bucket.
        const query = await graphql(app, '{ ok }');
        expect(query.statusCode).toBe(200);
        expect(query.headers['ratelimit']).toBe('"graphql";r=96;t=400');
        expect((await graphql(app, 'mutation { logout }')).json()).toEqual({ data: { logout: true } });
      });

      it('counts aliases and fragments: one request cannot call a limited mutation many times for one token', async () => {
        const app = await appWith(policyMap(policy('graphql:captureLead', 3)));
        const aliased =
          'mutation { a: captureLead(email: "a@b.c") b: captureLead(email: "b@b.c") ...More } fragment More on Mutation { c: captureLead(email: "c@b.c") d: captureLead(email: "d@b.c") }';
        const refused = await graphql(app, aliased);
        expect(refused.statusCode).toBe(429); // costs 4, above the capacity of 3
        const two = 'mutation { a: captureLead(email: "a@b.c") ... on Mutation { b: captureLead(email: "b@b.c") } }';
        expect((await graphql(app, two)).statusCode).toBe(200);
        expect((await graphql(app, two)).statusCode).toBe(429);
        expect((await graphql(app, 'mutation { captureLead(email: "a@b.c") }')).statusCode).toBe(200);
      });

      it('charges a sign-in to the account it names too, from any address, whether or not the account exists', async () => {
        const app = await appWith(policyMap(policy('graphql:loginCustomer:account', 2)));
        const byVariable = (email: string, ip: string) =>
          graphql(app, 'mutation ($email: String!) { loginCustomer(email: $email, password: "guess") }', { variables: { email } }, ip);
        expect(
          statuses([await byVariable('Ada@Example.com', '198.51.100.10'), await byVariable('ada@example.com ', '198.51.100.11')]),
        ).toEqual([200, 200]);
        const third = await graphql(app, 'mutation { loginCustomer(email: "ADA@example.com", password: "guess") }', {}, '198.51.100.12');
        expect(third.statusCode).toBe(429);
        expect(third.json()).toMatchObject({
          errors: [{ message: 'Too many requests (rate limit "graphql:loginCustomer:account"): retry in 100 s' }],
        });
        expect((await byVariable('grace@example.com', '198.51.100.12')).statusCode).toBe(200);
      });

      it("charges a sign-in to the account its variable's default names, as GraphQL coerces it", async () => {
        const app = await appWith(policyMap(policy('graphql:loginCustomer:account', 1)));
        const byDefault = 'mutation ($email: String = "Ada@Example.com") { loginCustomer(email: $email, password: "guess") }';
        expect((await graphql(app, byDefault, {}, '198.51.100.30')).statusCode).toBe(200);
        expect((await graphql(app, byDefault, {}, '198.51.100.31')).statusCode).toBe(429);
        expect(
          (await graphql(app, 'mutation { loginCustomer(email: "ada@example.com", password: "guess") }', {}, '198.51.100.32')).statusCode,
        ).toBe(429);
      });

      it('charges placeOrder per address and per session it checks out for', async () => {
        const app = await appWith(policyMap(policy('graphql:placeOrder', 3), policy('graphql:placeOrder:session', 2)));
        const place = (session: string, ip: string) =>
          app.inject({
            method: 'POST',
            url: '/graphql',
            headers: { 'x-session': session },
            payload: { query: 'mutation { placeOrder }' },
            remoteAddress: ip,
          });
        expect(
          statuses([await place('s1', '198.51.100.40'), await place('s1', '198.51.100.41'), await place('s1', '198.51.100.42')]),
        ).toEqual([200, 200, 429]);
        expect(
          statuses([await place('s2', '198.51.100.43'), await place('s3', '198.51.100.43'), await place('s4', '198.51.100.43')]),
        ).toEqual([200, 200, 200]);
        const refused = await place('s5', '198.51.100.43');
        expect(refused.statusCode).toBe(429);
        expect(refused.json()).toMatchObject({
          errors: [{ message: 'Too many requests (rate limit "graphql:placeOrder"): retry in 100 s' }],
        });
        expect((await place('s6', '198.51.100.44')).statusCode).toBe(200);
      });

      it('charges the operation the request runs when the document holds several', async () => {
        const app = await appWith(policyMap(policy('graphql:registerCustomer', 1), policy('graphql:captureLead', 1)));
        const document = 'mutation Register { registerCustomer } mutation Lead { captureLead(email: "a@b.c") } query Q { ok }';
        expect((await graphql(app, document, { operationName: 'Register' })).statusCode).toBe(200);
        expect((await graphql(app, document, { operationName: 'Q' })).statusCode).toBe(200);
        expect((await graphql(app, document, { operationName: 'Lead' })).statusCode).toBe(200);
        expect((await graphql(app, document, { operationName: 'Register' })).statusCode).toBe(429);
      });

      it('leaves a document that does not parse to GraphQL, uncharged', async () => {
        const app = await appWith(policyMap(policy('graphql:captureLead', 1)));
        const response = await graphql(app, 'mutation { captureLead(');
        expect(response.statusCode).toBe(400);
        expect(response.headers['ratelimit']).toBeUndefined();
      });
    });
  });
}

pluginContract('the memory store', async () => new MemoryCache());
pluginContract('real Redis', async () => {
  const cache = new RedisCache(inject('redisUrl'), logger);
  cache.connect();
  await new Promise((resolve) => cache.client.once('ready', resolve));
  return cache;
});

describe('when the cache is down', () => {
  it('fails open: allowed, with RateLimit-Policy but no RateLimit, counted as fail_open', async () => {
    const cache = new RedisCache('redis://127.0.0.1:1', logger);
    cache.connect();
    const metrics = new Registry();
    const limiter = new RateLimiter({ store: tokenBucketStoreFor(cache), policies: policyMap(policy('track', 1)), metrics, logger });
    const app = await buildTestApp(limiter);
    const responses = [await track(app), await track(app), await track(app)];
    expect(statuses(responses)).toEqual([202, 202, 202]);
    expect(responses[0]?.headers['ratelimit-policy']).toBe('"track";q=1;w=100');
    expect(responses[0]?.headers['ratelimit']).toBeUndefined();
    expect(await metrics.metrics()).toContain('rate_limit_decisions_total{policy="track",result="fail_open"} 3');
    await app.close();
    await cache.close();
  });
});

describe('a policy changed in rate_limit_policies', () => {
  let database: TestDatabase;
  let platformDatabase: Database;
  beforeAll(async () => {
    database = await createTestDatabase('api_rate_limit');
    await applyMigrations(database.url);
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'ERROR', DATABASE_URL: database.url });
    platformDatabase = await openDatabase(config, logger, new Registry());
  });
  afterAll(async () => {
    await platformDatabase?.close();
    await database?.drop();
  });

  it('takes effect on requests within 5 s, without restart', async () => {
    const cache = new MemoryCache();
    const opened = await openRateLimiter({
      database: platformDatabase,
      cache,
      metrics: new Registry(),
      logger,
      policies: { pollWhileListeningMs: 3_600_000 },
    });
    const app = await buildTestApp(opened.limiter);
    expect((await track(app)).headers['ratelimit-policy']).toBe('"track";q=120;w=6');

    await platformDatabase.pool.query(`UPDATE rate_limit_policies SET capacity = 2, refill_per_second = 0.5 WHERE key = 'track'`);
    await expect
      .poll(async () => (await track(app, '198.51.100.99')).headers['ratelimit-policy'], { timeout: 5_000 })
      .toBe('"track";q=2;w=4');
    // The request that saw the new policy left 1 of the 2 tokens.
    expect(statuses([await track(app, '198.51.100.99'), await track(app, '198.51.100.99')])).toEqual([202, 429]);

    await platformDatabase.pool.query(`UPDATE rate_limit_policies SET enabled = false WHERE key = 'track'`);
    await expect.poll(async () => (await track(app, '198.51.100.99')).statusCode, { timeout: 5_000 }).toBe(202);
    await app.close();
    await opened.close();
    await cache.close();
  });
});

describe('the caller', () => {
  it('can be replaced by another resolver', async () => {
    const limiter = new RateLimiter({
      store: tokenBucketStoreFor(new MemoryCache()),
      policies: policyMap(policy('track', 1)),
      metrics: new Registry(),
      logger,
    });
    const app = await buildTestApp(limiter, { caller: (req) => String(req.headers['x-api-key'] ?? 'anonymous') });
    const send = (key: string) => app.inject({ method: 'POST', url: '/track', headers: { 'x-api-key': key } });
    expect(statuses([await send('a'), await send('a'), await send('b')])).toEqual([202, 429, 202]);
    await app.close();
  });
});
