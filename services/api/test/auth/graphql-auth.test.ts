import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser, ensureRole, issueGuestSessionId, signAccessToken, tokenSettings } from '@shop/domain/auth';
import { bearer, openGraphqlApi, TEST_SECRET, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;
let channelId: string;
const WEB = { 'x-channel-id': 'auth-web' };

const REGISTER = `mutation ($input: RegisterCustomerInput!) {
  registerCustomer(input: $input) { accessToken accessTokenExpiresAt refreshToken refreshTokenExpiresAt }
}`;
const LOGIN =
  'mutation ($email: String!, $password: String!) { loginCustomer(email: $email, password: $password) { accessToken refreshToken } }';
const REFRESH = 'mutation ($token: String!) { refreshToken(refreshToken: $token) { accessToken refreshToken } }';
const LOGOUT = 'mutation ($token: String!) { logout(refreshToken: $token) }';
const ME = '{ me { id email firstName isBusiness approvalStatus channelId } }';

interface Pair {
  readonly accessToken: string;
  readonly refreshToken: string;
}

beforeAll(async () => {
  api = await openGraphqlApi('graphql_auth');
  const { createChannel } = await api.data<{ createChannel: { id: string } }>(
    'mutation { createChannel(input: { code: "auth-web", name: "Web", defaultCurrency: "EUR" }) { id } }',
    {},
    await api.adminHeaders(),
  );
  channelId = createChannel.id;
});

afterAll(async () => {
  await api?.close();
});

async function register(email: string, extra: Record<string, unknown> = {}): Promise<Pair> {
  const { registerCustomer } = await api.data<{ registerCustomer: Pair }>(
    REGISTER,
    { input: { email, password: 'correct horse battery', ...extra } },
    WEB,
  );
  return registerCustomer;
}

describe('customer sign-up and sign-in', () => {
  it('registers in the X-Channel-ID channel (by code or id), signs in and reads the profile', async () => {
    const pair = await register('Ada@Example.com', { firstName: 'Ada' });
    const { me } = await api.data<{ me: Record<string, unknown> }>(ME, {}, bearer(pair.accessToken));
    expect(me).toMatchObject({ email: 'ada@example.com', firstName: 'Ada', isBusiness: false, approvalStatus: null, channelId });

    const { loginCustomer } = await api.data<{ loginCustomer: Pair }>(
      LOGIN,
      { email: 'ada@example.com', password: 'correct horse battery' },
      { 'x-channel-id': channelId },
    );
    expect((await api.data<{ me: { email: string } }>(ME, {}, bearer(loginCustomer.accessToken))).me.email).toBe('ada@example.com');
  });

  it('refuses a second account with the email as CONFLICT naming the field', async () => {
    await register('twice@example.com');
    const error = await api.error(REGISTER, { input: { email: 'TWICE@example.com', password: 'correct horse battery' } }, WEB);
    expect(error.extensions).toMatchObject({ code: 'CONFLICT', field: 'email' });
  });

  it('refuses bad input as BAD_USER_INPUT naming the field', async () => {
    const short = await api.error(REGISTER, { input: { email: 'short@example.com', password: 'short' } }, WEB);
    expect(short).toMatchObject({
      message: 'password must be at least 10 characters',
      extensions: { code: 'BAD_USER_INPUT', field: 'password' },
    });
    const long = await api.error(
      REGISTER,
      { input: { email: 'long@example.com', password: 'correct horse battery', firstName: 'x'.repeat(101) } },
      WEB,
    );
    expect(long).toMatchObject({
      message: 'firstName must be at most 100 characters',
      extensions: { code: 'BAD_USER_INPUT', field: 'firstName' },
    });
    const email = await api.error(REGISTER, { input: { email: `${'a'.repeat(400)}@example.com`, password: 'correct horse battery' } }, WEB);
    expect(email.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'email' });
  });

  it('asks for the channel, and names an unknown one', async () => {
    const missing = await api.error(REGISTER, { input: { email: 'nochannel@example.com', password: 'correct horse battery' } });
    expect(missing.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'X-Channel-ID' });
    const unknown = await api.error(
      REGISTER,
      { input: { email: 'nochannel@example.com', password: 'correct horse battery' } },
      { 'x-channel-id': 'mars' },
    );
    expect(unknown).toMatchObject({ message: 'channel mars does not exist', extensions: { code: 'NOT_FOUND', field: 'X-Channel-ID' } });
  });

  it('answers a wrong password and an unknown email alike', async () => {
    await register('grace@example.com');
    const wrong = await api.error(LOGIN, { email: 'grace@example.com', password: 'wrong password!' }, WEB);
    const unknown = await api.error(LOGIN, { email: 'nobody@example.com', password: 'wrong password!' }, WEB);
    expect(wrong).toMatchObject({ message: 'invalid email or password', extensions: { code: 'UNAUTHENTICATED' } });
    expect(unknown.message).toBe(wrong.message);
  });

  it('me needs a signed-in customer', async () => {
    expect((await api.error(ME)).extensions.code).toBe('UNAUTHENTICATED');
    expect((await api.error(ME, {}, await api.adminHeaders())).extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('refresh and sign-out', () => {
  it('rotates the refresh token; reusing the old one revokes the whole sign-in', async () => {
    const first = await register('rotate@example.com');
    const { refreshToken: second } = await api.data<{ refreshToken: Pair }>(REFRESH, { token: first.refreshToken });
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await api.data<{ me: { email: string } }>(ME, {}, bearer(second.accessToken))).me.email).toBe('rotate@example.com');

    const reused = await api.error(REFRESH, { token: first.refreshToken });
    expect(reused.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'reused' });
    const revoked = await api.error(REFRESH, { token: second.refreshToken });
    expect(revoked.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'revoked' });
  });

  it('logout revokes the sign-in; an unknown token answers false', async () => {
    const pair = await register('logout@example.com');
    expect(await api.data(LOGOUT, { token: pair.refreshToken })).toEqual({ logout: true });
    expect((await api.error(REFRESH, { token: pair.refreshToken })).extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'revoked',
    });
    expect(await api.data(LOGOUT, { token: 'not-a-token' })).toEqual({ logout: false });
    expect((await api.error(REFRESH, { token: 'x'.repeat(5000) })).extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'unknown',
    });
  });
});

describe('bad access tokens are UNAUTHENTICATED, never 500', () => {
  const customer = { kind: 'customer', customerId: 1n, channelId: 1n, customerGroupId: null } as const;

  async function rejected(headers: Record<string, string>) {
    const response = await api.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...headers },
      payload: { query: '{ health }' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    const body = response.json<{ data: null; errors: { message: string; extensions: { code: string; reason: string } }[] }>();
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]?.extensions.code).toBe('UNAUTHENTICATED');
    return body.errors[0];
  }

  it('refuses a tampered token', async () => {
    const { token } = await signAccessToken(customer, tokenSettings(TEST_SECRET));
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()), sub: 'staff:1' }),
    ).toString('base64url');
    expect((await rejected(bearer(`${header}.${forged}.${signature}`)))?.extensions.reason).toBe('bad_signature');
    expect((await rejected(bearer(`${token.slice(0, -2)}xx`)))?.extensions.reason).toBe('bad_signature');
  });

  it('refuses a token signed with another key', async () => {
    const { token } = await signAccessToken(customer, tokenSettings('another-secret-key-entirely-0123456789'));
    expect((await rejected(bearer(token)))?.extensions.reason).toBe('bad_signature');
  });

  it('refuses an expired token', async () => {
    const { token } = await signAccessToken(customer, tokenSettings(TEST_SECRET, { now: () => new Date(Date.now() - 3_600_000) }));
    expect(await rejected(bearer(token))).toMatchObject({ message: 'access token expired', extensions: { reason: 'expired' } });
  });

  it('refuses a token for another audience or issuer', async () => {
    const audience = await signAccessToken(customer, tokenSettings(TEST_SECRET, { audience: 'shop-admin' }));
    expect((await rejected(bearer(audience.token)))?.extensions.reason).toBe('wrong_audience');
    const issuer = await signAccessToken(customer, tokenSettings(TEST_SECRET, { issuer: 'elsewhere' }));
    expect((await rejected(bearer(issuer.token)))?.extensions.reason).toBe('wrong_issuer');
  });

  it('refuses garbage, an empty bearer and other schemes', async () => {
    for (const authorization of ['Bearer not.a.jwt', 'Bearer', 'Basic YWRtaW46YWRtaW4=', `Bearer ${'a'.repeat(5000)}`]) {
      expect((await rejected({ authorization }))?.extensions.reason).toBe('malformed');
    }
  });

  it('answers GET /graphql the same way', async () => {
    const response = await api.app.inject({ method: 'GET', url: '/graphql?query=%7Bhealth%7D', headers: bearer('nope') });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'malformed' } }] });
  });
});

describe('guest sessions', () => {
  const CREATE_CART = 'mutation { createCart { id } }';
  const CART = 'query ($id: ID!) { cart(id: $id) { id } }';
  const NOT_ISSUED = {
    message:
      'X-Session-ID was not issued by this api: start a guest session with the startGuestSession mutation and send the id it answers',
    extensions: { code: 'BAD_USER_INPUT', field: 'X-Session-ID', reason: 'not_issued' },
  };

  const refusal = async (sessionId: string) => {
    const response = await api.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...WEB, 'x-session-id': sessionId },
      payload: { query: CREATE_CART },
    });
    return { status: response.statusCode, body: response.json() };
  };

  it("issues a new unguessable id each time, and the guest's cart is found by it alone", async () => {
    const [guest, other] = await Promise.all([api.guestSession(), api.guestSession()]);
    expect(guest).toMatch(/^g1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    expect(other).not.toBe(guest);
    const { createCart } = await api.data<{ createCart: { id: string } }>(CREATE_CART, {}, { ...WEB, 'x-session-id': guest });
    expect(await api.data(CART, { id: createCart.id }, { ...WEB, 'x-session-id': guest })).toEqual({ cart: { id: createCart.id } });
    expect((await api.error(CART, { id: createCart.id }, { ...WEB, 'x-session-id': other })).extensions.code).toBe('NOT_FOUND');
  });

  it('refuses with 400, before GraphQL runs, a session id the client made up or altered', async () => {
    const issued = await api.guestSession();
    const [, random = '', tag = ''] = issued.split('.');
    const flip = (text: string) => `${text.startsWith('A') ? 'B' : 'A'}${text.slice(1)}`;
    // 22 base64url characters carry 16 bytes and 4 spare bits: another spelling of the same bytes is not the id either.
    const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelt = `${tag.slice(0, -1)}${BASE64URL[BASE64URL.indexOf(tag.at(-1) ?? '') + 1]}`;
    for (const forged of [
      'guest-picked-id',
      'a1b2c3d4-e5f6-4711-8899-aabbccddeeff',
      's'.repeat(256),
      `g1.${flip(random)}.${tag}`,
      `g1.${random}.${flip(tag)}`,
      `g1.${random}.${respelt}`,
      `g2.${random}.${tag}`,
    ]) {
      expect(await refusal(forged)).toEqual({ status: 400, body: { data: null, errors: [NOT_ISSUED] } });
    }
  });

  it('refuses a session id another api issued with its own SECRET_KEY', async () => {
    const elsewhere = issueGuestSessionId({ secret: 'another-api-secret-key-0123456789abcdef' });
    expect(await refusal(elsewhere)).toEqual({ status: 400, body: { data: null, errors: [NOT_ISSUED] } });
  });
});

describe('staff permissions', () => {
  const CREATE_BRAND = 'mutation ($slug: String!) { createBrand(input: { name: "Acme", slug: $slug }) { id slug } }';

  it('names the missing permission as FORBIDDEN', async () => {
    await api.prisma.$transaction((tx) => createStaffUser(tx, { email: 'clerk@shop.test', password: 'clerk-password-1', name: 'Clerk' }));
    const { loginStaff } = await api.data<{ loginStaff: Pair }>(
      'mutation { loginStaff(email: "clerk@shop.test", password: "clerk-password-1") { accessToken refreshToken } }',
    );
    const error = await api.error(CREATE_BRAND, { slug: 'acme-clerk' }, bearer(loginStaff.accessToken));
    expect(error).toMatchObject({
      message: 'missing permission catalog.write',
      extensions: { code: 'FORBIDDEN', permission: 'catalog.write' },
    });
    const { staffMe } = await api.data<{ staffMe: { permissions: string[] } }>(
      '{ staffMe { permissions } }',
      {},
      bearer(loginStaff.accessToken),
    );
    expect(staffMe.permissions).toEqual([]);
  });

  it('refuses customers as FORBIDDEN and anonymous callers as UNAUTHENTICATED', async () => {
    const customer = await register('shopper@example.com');
    expect((await api.error(CREATE_BRAND, { slug: 'acme-customer' }, bearer(customer.accessToken))).extensions).toMatchObject({
      code: 'FORBIDDEN',
      permission: 'catalog.write',
    });
    expect((await api.error(CREATE_BRAND, { slug: 'acme-anonymous' })).extensions.code).toBe('UNAUTHENTICATED');
  });

  it('lets a role do what it grants and nothing more, and applies a deactivation at once', async () => {
    await api.prisma.$transaction(async (tx) => {
      await ensureRole(tx, { name: 'order-viewer', permissions: ['orders.read'] });
      await createStaffUser(tx, { email: 'viewer@shop.test', password: 'viewer-password-1', name: 'Viewer', roles: ['order-viewer'] });
    });
    const { loginStaff } = await api.data<{ loginStaff: Pair }>(
      'mutation { loginStaff(email: "viewer@shop.test", password: "viewer-password-1") { accessToken refreshToken } }',
    );
    const headers = bearer(loginStaff.accessToken);
    expect(await api.data('{ orders(first: 1) { nodes { id } } }', {}, headers)).toEqual({ orders: { nodes: [] } });
    expect((await api.error('mutation { cancelOrder(id: "1", reason: "no") { id } }', {}, headers)).extensions).toMatchObject({
      code: 'FORBIDDEN',
      permission: 'orders.manage',
    });
    await api.prisma.staffUser.update({ where: { email: 'viewer@shop.test' }, data: { active: false } });
    expect((await api.error('{ orders(first: 1) { nodes { id } } }', {}, headers)).extensions).toMatchObject({
      code: 'FORBIDDEN',
      permission: 'orders.read',
    });
    expect((await api.error(REFRESH, { token: loginStaff.refreshToken })).extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'account_disabled',
    });
  });

  it('lets the admin do it and see every permission', async () => {
    const headers = await api.adminHeaders();
    expect(await api.data(CREATE_BRAND, { slug: 'acme-admin' }, headers)).toMatchObject({ createBrand: { slug: 'acme-admin' } });
    const { staffMe } = await api.data<{ staffMe: { email: string; permissions: string[] } }>(
      '{ staffMe { email permissions } }',
      {},
      headers,
    );
    expect(staffMe.permissions).toContain('orders.manage');
    expect(staffMe.permissions).toContain('catalog.write');
  });
});
