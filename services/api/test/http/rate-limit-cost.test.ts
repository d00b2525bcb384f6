import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

// The api over its own database and the shared test Redis: the graphql bucket is charged by the operation's cost.

let api: GraphqlApi;
let channel: Record<string, string>;

/** A client address no other test (or earlier run: the buckets live in the shared Redis) has used. */
const freshAddress = () => `2001:db8:${randomBytes(6).toString('hex').match(/.{4}/g)?.join(':')}::1`;

const post = (query: string, address: string, variables: Record<string, unknown> = {}) =>
  api.app.inject({ method: 'POST', url: '/graphql', headers: { ...channel, 'x-forwarded-for': address }, payload: { query, variables } });

const CHEAP = '{ products(first: 1) { nodes { id } } }'; // cost 2: one token
// 1 + first × 4 (nodes, brand, categories, parent): 401 for 100, five tokens.
const PAGE = 'query ($n: Int) { products(first: $n) { nodes { id brand { id } categories { parent { id } } } } }';

beforeAll(async () => {
  api = await openGraphqlApi('rate_limit_cost');
  channel = { 'x-channel-id': (await seedDemoShop(api)).channelId };
  await api.platform.database.pool.query(`UPDATE rate_limit_policies SET capacity = 12, refill_per_second = 0.001 WHERE key = 'graphql'`);
  await vi.waitFor(async () => expect((await post(CHEAP, freshAddress())).headers['ratelimit-policy']).toBe('"graphql";q=12;w=12000'), {
    timeout: 5_000,
  });
});

afterAll(async () => {
  await api?.close();
});

describe('the graphql bucket, charged by cost', () => {
  it('takes one token per 100 cost points, at least one, and refuses with 429 what the bucket cannot pay, naming the cost', async () => {
    const address = freshAddress();
    const cheap = await post(CHEAP, address);
    expect(cheap.statusCode).toBe(200);
    expect(cheap.headers['ratelimit']).toMatch(/^"graphql";r=11;t=\d+$/);

    const page = await post(PAGE, address, { n: 100 });
    expect(page.statusCode).toBe(200);
    expect(page.json<{ data: { products: { nodes: unknown[] } } }>().data.products.nodes.length).toBeGreaterThan(0);
    // One item per policy: the charge once the cost was known replaced the arrival's.
    expect(page.headers['ratelimit-policy']).toBe('"graphql";q=12;w=12000');
    expect(page.headers['ratelimit']).toMatch(/^"graphql";r=6;t=\d+$/);

    // 1 token on arrival leaves 5, then the 4 more of a page of 100 leave 1.
    expect((await post(PAGE, address, { n: 100 })).headers['ratelimit']).toMatch(/^"graphql";r=1;t=\d+$/);

    const refused = await post(PAGE, address, { n: 100 });
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(refused.headers['ratelimit']).toBe(`"graphql";r=0;t=${retryAfter}`);
    expect(refused.json()).toEqual({
      data: null,
      errors: [
        {
          message: `Too many requests (rate limit "graphql"): the query costs 401, 5 tokens at one per 100 cost points; retry in ${retryAfter} s`,
          extensions: { code: 'RATE_LIMITED', cost: 401, tokens: 5 },
        },
      ],
    });
  });

  it('charges a small page one token, whatever its variables ask for below 100 points', async () => {
    const address = freshAddress();
    expect((await post(PAGE, address, { n: 20 })).headers['ratelimit']).toMatch(/^"graphql";r=11;t=\d+$/); // 81: one token
    expect((await post(PAGE, address, { n: 25 })).headers['ratelimit']).toMatch(/^"graphql";r=9;t=\d+$/); // 101: two
  });

  it('refuses on arrival, before the body is read, once the bucket is empty', async () => {
    const address = freshAddress();
    for (let i = 0; i < 2; i += 1) expect((await post(PAGE, address, { n: 100 })).statusCode).toBe(200);
    // 12 - 2 × 5 leaves two cheap queries.
    for (let i = 0; i < 2; i += 1) expect((await post(CHEAP, address)).statusCode).toBe(200);
    const empty = await post(CHEAP, address);
    expect(empty.statusCode).toBe(429);
    expect(empty.json<{ errors: { message: string }[] }>().errors[0]?.message).toMatch(
      /^Too many requests \(rate limit "graphql"\): retry in \d+ s$/,
    );
  });
});
