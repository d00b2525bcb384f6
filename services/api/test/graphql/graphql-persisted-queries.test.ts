import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser } from '@shop/domain/auth';
import { eventually } from '../../../../test/support/wait.ts';
import { ADMIN, bearer, openGraphqlApi, type GraphqlApi } from '../support/graphql-harness.ts';

const HEALTH = 'query Health { health }';
const SIGN_IN = 'mutation SignIn($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }';
const UNREGISTERED = '{ health }';
const STAFF_ONLY = '{ orders(first: 1) { nodes { id } } }';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const byHash = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

let dir: string;
let allowlist: GraphqlApi;
let prepared: GraphqlApi;
let addresses = 0;

/** A shopper's address of its own, so its rate-limit buckets start full whatever other test files spent. */
const freshAddress = () => `10.${process.pid % 250}.${Math.floor(++addresses / 250)}.${addresses % 250}`;

async function post(api: GraphqlApi, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await api.app.inject({ method: 'POST', url: '/graphql', headers, payload });
  return {
    status: response.statusCode,
    body: response.json<{ data?: Record<string, unknown> | null; errors?: { message: string; extensions: Record<string, unknown> }[] }>(),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'persisted-queries-'));
  const file = join(dir, 'operations.json');
  await writeFile(file, JSON.stringify(Object.fromEntries([HEALTH, SIGN_IN].map((query) => [sha256(query), query]))));
  [allowlist, prepared] = await Promise.all([
    openGraphqlApi('graphql_persisted_allowlist', { GRAPHQL_PERSISTED_QUERIES: 'allowlist', GRAPHQL_PERSISTED_QUERIES_FILE: file }),
    openGraphqlApi('graphql_persisted_prepared', { GRAPHQL_PERSISTED_QUERIES: 'prepared', GRAPHQL_PERSISTED_QUERIES_FILE: file }),
  ]);
});

afterAll(async () => {
  await Promise.all([allowlist?.close(), prepared?.close()]);
  if (dir !== undefined) await rm(dir, { recursive: true });
});

describe('GRAPHQL_PERSISTED_QUERIES=allowlist', () => {
  it('runs a registered operation sent whole, or by its SHA-256 alone over POST and GET', async () => {
    expect(await post(allowlist, { query: HEALTH })).toEqual({ status: 200, body: { data: { health: 'ok' } } });
    expect(await post(allowlist, { extensions: byHash(HEALTH) })).toEqual({ status: 200, body: { data: { health: 'ok' } } });
    const get = await allowlist.app.inject({ method: 'GET', url: '/graphql', query: { extensions: JSON.stringify(byHash(HEALTH)) } });
    expect({ status: get.statusCode, body: get.json() }).toEqual({ status: 200, body: { data: { health: 'ok' } } });
  });

  it('refuses a query that is not registered with 400 naming its SHA-256, before it runs', async () => {
    const { status, body } = await post(allowlist, { query: UNREGISTERED });
    expect(status).toBe(400);
    expect(body.data).toBeNull();
    expect(body.errors).toEqual([
      {
        message: `this api runs only registered operations, and none is registered under this query's SHA-256 ${sha256(UNREGISTERED)} (GRAPHQL_PERSISTED_QUERIES=allowlist)`,
        extensions: { code: 'PERSISTED_QUERY_NOT_ALLOWED', sha256: sha256(UNREGISTERED) },
      },
    ]);
  });

  it('refuses an unknown hash and a malformed persistedQuery with 400', async () => {
    const unknown = await post(allowlist, { extensions: byHash(UNREGISTERED) });
    expect(unknown).toEqual({
      status: 400,
      body: {
        data: null,
        errors: [
          {
            message: `no operation is registered under the SHA-256 ${sha256(UNREGISTERED)}`,
            extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
          },
        ],
      },
    });
    const malformed = await post(allowlist, { extensions: { persistedQuery: { version: 2, sha256Hash: sha256(HEALTH) } } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors?.[0]?.extensions).toEqual({ code: 'PERSISTED_QUERY_NOT_SUPPORTED' });
  });

  it('lets staff run any query once signed in through a registered operation', async () => {
    const signIn = await post(allowlist, { extensions: byHash(SIGN_IN), variables: { email: ADMIN.email, password: ADMIN.password } });
    const { accessToken } = (signIn.body.data as { loginStaff: { accessToken: string } }).loginStaff;
    expect(await post(allowlist, { query: STAFF_ONLY }, bearer(accessToken))).toEqual({
      status: 200,
      body: { data: { orders: { nodes: [] } } },
    });
    expect((await post(allowlist, { query: STAFF_ONLY })).body.errors?.[0]?.extensions['code']).toBe('PERSISTED_QUERY_NOT_ALLOWED');
  });

  it('holds a staff user deactivated after sign-in to the allowlist', async () => {
    const email = 'deactivated-after-sign-in@shop.test';
    const password = 'deactivated-password-1';
    await allowlist.prisma.$transaction((tx) => createStaffUser(tx, { email, password, name: 'Leaver', roles: [] }));
    const signIn = await post(allowlist, { extensions: byHash(SIGN_IN), variables: { email, password } });
    const staff = bearer((signIn.body.data as { loginStaff: { accessToken: string } }).loginStaff.accessToken);
    expect(await post(allowlist, { query: UNREGISTERED }, staff)).toEqual({ status: 200, body: { data: { health: 'ok' } } });

    await allowlist.prisma.staffUser.update({ where: { email }, data: { active: false } });
    const refused = await post(allowlist, { query: UNREGISTERED }, staff);
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'PERSISTED_QUERY_NOT_ALLOWED', sha256: sha256(UNREGISTERED) });
  });

  it('charges a mutation sent by hash to its rate-limit policy as if it had been sent whole', async () => {
    const pool = allowlist.platform.database.pool;
    await pool.query(`UPDATE rate_limit_policies SET capacity = 1, refill_per_second = 0.0001 WHERE key = 'graphql:loginStaff'`);
    const twice = async (payload: Record<string, unknown>) => {
      const headers = { 'x-forwarded-for': freshAddress() };
      const variables = { email: ADMIN.email, password: 'not-the-password' };
      const first = await post(allowlist, { ...payload, variables }, headers);
      const second = await post(allowlist, { ...payload, variables }, headers);
      return [first.status, second.status];
    };
    // The api reloads the policy when the database notifies it.
    await eventually(async () => expect(await twice({ query: SIGN_IN })).toEqual([200, 429]));
    expect(await twice({ extensions: byHash(SIGN_IN) })).toEqual([200, 429]);
  });
});

describe('GRAPHQL_PERSISTED_QUERIES=prepared', () => {
  it('runs registered operations by hash and any other query as it is', async () => {
    expect(await post(prepared, { extensions: byHash(HEALTH) })).toEqual({ status: 200, body: { data: { health: 'ok' } } });
    expect(await post(prepared, { query: UNREGISTERED })).toEqual({ status: 200, body: { data: { health: 'ok' } } });
    expect((await post(prepared, { extensions: byHash(UNREGISTERED) })).body.errors?.[0]?.extensions).toEqual({
      code: 'PERSISTED_QUERY_NOT_FOUND',
    });
  });
});
