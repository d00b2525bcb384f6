import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

// The api as buildApp wires it, over its own database and the shared test Redis: every policy is the
// route's the router matched and every charge reads what GraphQL coerces, never the raw request.

let api: GraphqlApi;
let channel: Record<string, string>;

/** A client address no other test (or earlier run: the buckets live in the shared Redis) has used. */
const freshAddress = () => `2001:db8:${randomBytes(6).toString('hex').match(/.{4}/g)?.join(':')}::1`;
const freshEmail = () => `${randomBytes(6).toString('hex')}@example.com`;
const statuses = (responses: ReadonlyArray<{ statusCode: number }>) => responses.map((response) => response.statusCode);

const graphqlAt = (
  url: string,
  address: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  api.app.inject({ method: 'POST', url, headers: { ...channel, ...headers, 'x-forwarded-for': address }, payload: { query, variables } });

/** In turn, not at once: each answer is the bucket's state after the ones before. */
async function inTurn<T>(count: number, send: (index: number) => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let index = 0; index < count; index += 1) answers.push(await send(index));
  return answers;
}

/** The 429's message: the sign-ins' scrypt runs take seconds, so the time to the next token is a little under 1000 s. */
const retryLater = (policy: string) =>
  expect.stringMatching(new RegExp(`^Too many requests \\(rate limit "${policy}"\\): retry in \\d+ s$`));

const SIGN_IN = 'mutation ($email: String!) { loginCustomer(email: $email, password: "a wrong guess") { accessToken } }';

/** The tight policies the tests prove, set in one statement; `graphql` at 99999 marks that the api has reloaded them. */
const POLICIES: ReadonlyArray<readonly [string, number]> = [
  ['graphql', 99_999],
  ['track', 2],
  ['graphql:loginCustomer', 3],
  ['graphql:loginCustomer:account', 5],
  ['graphql:placeOrder', 4],
  ['graphql:placeOrder:session', 2],
];

beforeAll(async () => {
  api = await openGraphqlApi('rate_limit_routes');
  channel = { 'x-channel-id': (await seedDemoShop(api)).channelId };
  const values = POLICIES.map(([key, capacity]) => `('${key}', ${capacity}, 0.001)`).join(', ');
  await api.platform.database.pool.query(
    `INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ${values}
     ON CONFLICT (key) DO UPDATE SET capacity = excluded.capacity, refill_per_second = excluded.refill_per_second`,
  );
  await vi.waitFor(
    async () =>
      expect((await graphqlAt('/graphql', freshAddress(), '{ __typename }')).headers['ratelimit-policy']).toBe(
        '"graphql";q=99999;w=99999000',
      ),
    {
      timeout: 5_000,
    },
  );
});

afterAll(async () => {
  await api?.close();
});

describe('a path spelled otherwise (percent-encoded) reaches the same route', () => {
  it('throttles wrong-password sign-ins through /gr%61phql exactly as through /graphql, per address and per account', async () => {
    const plain = freshAddress();
    const plainEmail = freshEmail();
    const throughPlain = await inTurn(4, () => graphqlAt('/graphql', plain, SIGN_IN, { email: plainEmail }));
    const encoded = freshAddress();
    const encodedEmail = freshEmail();
    const throughEncoded = await inTurn(4, () => graphqlAt('/gr%61phql', encoded, SIGN_IN, { email: encodedEmail }));
    expect(statuses(throughPlain)).toEqual([200, 200, 200, 429]);
    expect(statuses(throughEncoded)).toEqual(statuses(throughPlain));
    expect(throughEncoded[3]?.json()).toMatchObject({
      errors: [{ message: retryLater('graphql:loginCustomer'), extensions: { code: 'RATE_LIMITED' } }],
    });
    expect(throughEncoded[0]?.headers['ratelimit-policy']).toBe(throughPlain[0]?.headers['ratelimit-policy']);

    // One account guessed from a new address each time: its own bucket, through the encoded path too.
    const victim = freshEmail();
    const spread = await inTurn(6, (index) =>
      graphqlAt(index % 2 === 0 ? '/gr%61phql' : '/graphql', freshAddress(), SIGN_IN, { email: victim }),
    );
    expect(statuses(spread)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(spread[5]?.json()).toMatchObject({ errors: [{ message: retryLater('graphql:loginCustomer:account') }] });
  });

  it('throttles POST /tr%61ck exactly as POST /track', async () => {
    const send = (url: string, address: string) =>
      api.app.inject({ method: 'POST', url, headers: { 'x-forwarded-for': address }, payload: {} });
    const plain = freshAddress();
    const throughPlain = await inTurn(3, () => send('/track', plain));
    const encoded = freshAddress();
    const throughEncoded = await inTurn(3, () => send('/tr%61ck', encoded));
    expect(statuses(throughPlain)).toEqual([400, 400, 429]);
    expect(statuses(throughEncoded)).toEqual(statuses(throughPlain));
    expect(throughEncoded[2]?.json()).toEqual({ error: { code: 'RATE_LIMITED', message: retryLater('track') } });
  });
});

describe('a sign-in naming its account through a variable', () => {
  it("charges the account of the variable's default value when the request leaves the variable out", async () => {
    const victim = freshEmail();
    const byDefault = `mutation ($email: String = "${victim}") { loginCustomer(email: $email, password: "a wrong guess") { accessToken } }`;
    const attempts = await inTurn(6, () => graphqlAt('/graphql', freshAddress(), byDefault));
    expect(statuses(attempts)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(attempts[5]?.json()).toMatchObject({ errors: [{ message: retryLater('graphql:loginCustomer:account') }] });
    // The same bucket as the plain spelling of that email.
    expect((await graphqlAt('/graphql', freshAddress(), SIGN_IN, { email: victim.toUpperCase() })).statusCode).toBe(429);
  });
});

describe('checkout (placeOrder authorizes a card)', () => {
  const PLACE = `mutation ($key: String!) {
    placeOrder(input: { cartId: "1", email: "shopper@example.com", billingAddress: { name: "A", line1: "1 Road", city: "Town", postalCode: "1000", countryCode: "DE" },
      idempotencyKey: $key, card: { token: "tok_visa" } }) { id }
  }`;
  const place = (address: string, session: string) =>
    graphqlAt('/graphql', address, PLACE, { key: randomBytes(8).toString('hex') }, { 'x-session-id': session });

  it('refuses the third attempt of one session, from any address, while another session still passes', async () => {
    const session = await api.guestSession();
    const attempts = await inTurn(3, () => place(freshAddress(), session));
    expect(statuses(attempts).slice(0, 2)).not.toContain(429);
    expect(attempts[2]?.statusCode).toBe(429);
    expect(Number(attempts[2]?.headers['retry-after'])).toBeGreaterThan(900);
    expect(attempts[2]?.json()).toMatchObject({
      errors: [{ message: retryLater('graphql:placeOrder:session'), extensions: { code: 'RATE_LIMITED' } }],
    });
    expect((await place(freshAddress(), await api.guestSession())).statusCode).not.toBe(429);
  });

  it('refuses the fifth attempt from one address, whatever fresh session it names, while another address still passes', async () => {
    const address = freshAddress();
    const attempts = await inTurn(5, async () => place(address, await api.guestSession()));
    expect(statuses(attempts).slice(0, 4)).not.toContain(429);
    expect(attempts[4]?.statusCode).toBe(429);
    expect(attempts[4]?.json()).toMatchObject({ errors: [{ message: retryLater('graphql:placeOrder') }] });
    expect((await place(freshAddress(), await api.guestSession())).statusCode).not.toBe(429);
  });
});
