import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createStaffUser } from '@shop/domain/auth';
import { bearer, openGraphqlApi, type GraphqlApi } from '../support/graphql-harness.ts';

// Storefront access tokens over the api's own database and the shared test Redis: created, listed and
// revoked by staff, and a BFF's requests charged to its own policy and to the shoppers it names.

let api: GraphqlApi;
let admin: Record<string, string>;

/** A client address no other test (or earlier run: the buckets live in the shared Redis) has used. */
const freshAddress = () => `2001:db8:${randomBytes(6).toString('hex').match(/.{4}/g)?.join(':')}::1`;

const HEALTH = '{ health }';
const CREATE =
  'mutation ($name: String!) { createStorefrontToken(name: $name) { token storefrontToken { id name createdAt createdByStaffUserId lastUsedAt revokedAt } } }';
const LIST = '{ storefrontTokens { id name lastUsedAt revokedAt } }';
const REVOKE = 'mutation ($id: ID!) { revokeStorefrontToken(id: $id) { id revokedAt } }';

interface Created {
  readonly token: string;
  readonly storefrontToken: {
    readonly id: string;
    readonly name: string;
    readonly createdByStaffUserId: string | null;
    readonly lastUsedAt: string | null;
    readonly revokedAt: string | null;
  };
}

/** Staff requests come from an address of their own: the test policies below are tight. */
const asStaff = () => ({ ...admin, 'x-forwarded-for': freshAddress() });

async function createToken(name: string): Promise<Created> {
  return (await api.data<{ createStorefrontToken: Created }>(CREATE, { name }, asStaff())).createStorefrontToken;
}

const post = (headers: Record<string, string>, query = HEALTH) =>
  api.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query } });
const statuses = (responses: ReadonlyArray<{ statusCode: number }>) => responses.map((response) => response.statusCode);
const times = async (count: number, send: () => Promise<{ statusCode: number }>) => {
  const responses = [];
  for (let i = 0; i < count; i += 1) responses.push(await send());
  return statuses(responses);
};

beforeAll(async () => {
  api = await openGraphqlApi('storefront_tokens');
  admin = await api.adminHeaders();
  // Three requests per shopper (or address), eight per BFF, and no refill to speak of during the test.
  await api.platform.database.pool.query(`
    UPDATE rate_limit_policies SET capacity = 3, refill_per_second = 0.001 WHERE key IN ('graphql', 'track');
    UPDATE rate_limit_policies SET capacity = 8, refill_per_second = 0.001 WHERE key IN ('bff:graphql', 'bff:track');`);
  await vi.waitFor(
    async () => expect((await post({ 'x-forwarded-for': freshAddress() })).headers['ratelimit-policy']).toBe('"graphql";q=3;w=3000'),
    { timeout: 5_000 },
  );
});

afterAll(async () => {
  await api?.close();
});

describe('storefront access tokens, for staff', () => {
  it('are shown once on creation, stored only as their SHA-256, and listed without the token', async () => {
    const created = await createToken('web storefront');
    expect(created.token).toMatch(/^sft_[A-Za-z0-9_-]{43}$/);
    expect(created.storefrontToken).toMatchObject({ name: 'web storefront', lastUsedAt: null, revokedAt: null });
    expect(created.storefrontToken.createdByStaffUserId).not.toBeNull();

    const { rows } = await api.platform.database.pool.query<{ row: string }>(
      'SELECT row_to_json(t)::text AS row FROM storefront_tokens t WHERE id = $1',
      [created.storefrontToken.id],
    );
    expect(rows[0]?.row).toContain(createHash('sha256').update(created.token).digest('hex'));
    expect(rows[0]?.row).not.toContain(created.token.slice(4));

    const { storefrontTokens } = await api.data<{ storefrontTokens: { id: string; name: string }[] }>(LIST, {}, asStaff());
    expect(storefrontTokens.map((token) => token.id)).toContain(created.storefrontToken.id);
    expect(JSON.stringify(storefrontTokens)).not.toContain(created.token.slice(4));
  });

  it('need the storefront_tokens.manage permission', async () => {
    expect(await api.error(LIST, {}, { 'x-forwarded-for': freshAddress() })).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    const clerk = { email: 'clerk@shop.test', password: 'clerk-password-1', name: 'Clerk' };
    await api.prisma.$transaction((tx) => createStaffUser(tx, clerk));
    const { loginStaff } = await api.data<{ loginStaff: { accessToken: string } }>(
      'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }',
      { email: clerk.email, password: clerk.password },
      { 'x-forwarded-for': freshAddress() },
    );
    const asClerk = { ...bearer(loginStaff.accessToken), 'x-forwarded-for': freshAddress() };
    expect(await api.error(CREATE, { name: 'mine' }, asClerk)).toMatchObject({
      extensions: { code: 'FORBIDDEN', permission: 'storefront_tokens.manage' },
    });
    expect(await api.error(CREATE, { name: ' ' }, asStaff())).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'name' } });
    expect(await api.error(REVOKE, { id: '999999' }, asStaff())).toMatchObject({ extensions: { code: 'NOT_FOUND', field: 'id' } });
  });

  it('record when they were last used', async () => {
    const { token, storefrontToken } = await createToken('last used');
    expect((await post({ 'x-storefront-token': token })).statusCode).toBe(200);
    await vi.waitFor(async () => {
      const { storefrontTokens } = await api.data<{ storefrontTokens: { id: string; lastUsedAt: string | null }[] }>(LIST, {}, asStaff());
      expect(storefrontTokens.find((listed) => listed.id === storefrontToken.id)?.lastUsedAt).not.toBeNull();
    });
  });
});

describe('a request with a storefront token', () => {
  it("is charged to the BFF's own policy, and to no address's, when it names no shopper", async () => {
    const { token } = await createToken('own requests');
    const own = () => post({ 'x-storefront-token': token, 'x-forwarded-for': freshAddress() });
    const first = await own();
    expect(first.headers['ratelimit-policy']).toBe('"bff:graphql";q=8;w=8000');
    expect(first.headers['ratelimit']).toMatch(/^"bff:graphql";r=7;t=\d+$/);
    // Eight in all, above the three a single address gets, then the BFF's bucket is empty.
    expect(await times(8, own)).toEqual([200, 200, 200, 200, 200, 200, 200, 429]);
  });

  it('is charged per shopper named in X-Shopper-IP, with the BFF paying for all of them', async () => {
    const { token } = await createToken('per shopper');
    const [ada, grace] = [freshAddress(), freshAddress()];
    const forShopper = (shopper: string) => () => post({ 'x-storefront-token': token, 'x-shopper-ip': shopper });
    const first = await forShopper(ada)();
    expect(first.headers['ratelimit-policy']).toBe('"bff:graphql";q=8;w=8000, "graphql";q=3;w=3000');
    expect(first.headers['ratelimit']).toMatch(/^"bff:graphql";r=7;t=\d+, "graphql";r=2;t=\d+$/);
    expect(await times(3, forShopper(ada))).toEqual([200, 200, 429]);
    expect(await times(3, forShopper(grace))).toEqual([200, 200, 200]);
    // 7 of the BFF's 8 tokens are spent (a refused shopper's request paid the BFF's token first).
    expect(await times(2, forShopper(freshAddress()))).toEqual([200, 429]);
  });

  it('charges /track to the BFF and to the shopper too', async () => {
    const { token } = await createToken('beacon relay');
    const response = await api.app.inject({
      method: 'POST',
      url: '/track',
      headers: { 'x-storefront-token': token, 'x-shopper-ip': freshAddress(), 'x-session-id': 'storefront-tokens-test-session' },
      payload: { events: [] },
    });
    expect(response.headers['ratelimit-policy']).toBe('"bff:track";q=8;w=8000, "track";q=3;w=3000');
  });

  it('is refused with 401 once the token is revoked, not served as an anonymous request', async () => {
    const { token, storefrontToken } = await createToken('to revoke');
    expect((await post({ 'x-storefront-token': token })).statusCode).toBe(200);
    const { revokeStorefrontToken } = await api.data<{ revokeStorefrontToken: { revokedAt: string | null } }>(
      REVOKE,
      { id: storefrontToken.id },
      asStaff(),
    );
    expect(revokeStorefrontToken.revokedAt).not.toBeNull();

    const refused = await post({ 'x-storefront-token': token, 'x-forwarded-for': freshAddress() });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('X-Storefront-Token');
    expect(refused.json()).toEqual({
      errors: [
        {
          message:
            'X-Storefront-Token is not an accepted storefront token (unknown or revoked): staff create one with createStorefrontToken',
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
    });
    const { storefrontTokens } = await api.data<{ storefrontTokens: { id: string; revokedAt: string | null }[] }>(LIST, {}, asStaff());
    expect(storefrontTokens.find((listed) => listed.id === storefrontToken.id)?.revokedAt).toBe(revokeStorefrontToken.revokedAt);
  });

  it('is refused with 401 for a token the api never issued, and with 400 for a shopper that is no IP address', async () => {
    const unknown = `sft_${randomBytes(32).toString('base64url')}`;
    expect((await post({ 'x-storefront-token': unknown })).statusCode).toBe(401);
    expect((await post({ 'x-storefront-token': 'not-a-token' })).statusCode).toBe(401);

    const { token } = await createToken('bad shopper');
    const bad = await post({ 'x-storefront-token': token, 'x-shopper-ip': 'shopper-1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      errors: [
        { message: 'X-Shopper-IP must be the shopper\'s IP address (IPv4 or IPv6), not "shopper-1"', extensions: { code: 'BAD_REQUEST' } },
      ],
    });
  });
});

describe('a request without a storefront token', () => {
  it('is charged to its address, whatever X-Shopper-IP it claims', async () => {
    const address = freshAddress();
    const claiming = () => post({ 'x-forwarded-for': address, 'x-shopper-ip': freshAddress() });
    const first = await claiming();
    expect(first.headers['ratelimit-policy']).toBe('"graphql";q=3;w=3000');
    expect(await times(3, claiming)).toEqual([200, 200, 429]);
  });
});
