// The order-notes extension through the real api process: discovered in extensions/, its table migrated
// under its own version table at boot (and nothing the second time), its permission upserted, its
// GraphQL fields served and its listener run by the api's outbox. The last test starts the api before
// the core migrations, as the api may be: the extension's chain waits for them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { ensureAdmin } from '@shop/domain';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase } from '../../../test/infra/isolation.ts';
import { openTestPlatform, type TestPlatform } from '../../../test/support/test-platform.ts';
import { runApi } from '../../../services/api/test/run-api.ts';

const ADMIN = { email: 'notes-admin@shop.test', password: 'notes-admin-password', name: 'Notes Admin' };
const HEAD = '20261125150000_create_order_notes';

let test: TestPlatform;
let orderId: string;

beforeAll(async () => {
  test = await openTestPlatform('order_notes');
  const { prisma } = test.platform.database;
  await prisma.$transaction((tx) => ensureAdmin(tx, ADMIN));
  const [order] = await prisma.$queryRaw<Array<{ id: bigint }>>`
    WITH channel AS (INSERT INTO channels (code, name, default_currency, updated_at) VALUES ('web', 'Web', 'EUR', now()) RETURNING id)
    INSERT INTO orders (number, channel_id, email, status, currency, subtotal, tax, shipping, discount, total, billing_address, shipping_address, updated_at)
    SELECT 'N-1', id, 'buyer@shop.test', 'PLACED', 'EUR', 10, 0, 0, 0, 10, '{}', '{}', now() FROM channel RETURNING id`;
  orderId = String(order?.id);
});

afterAll(async () => {
  await test?.close();
});

function startApi() {
  return runApi({ PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'INFO', DATABASE_URL: test.database.url, CACHE_URL: inject('redisUrl'), SECRET_KEY: 'order-notes-test-secret-key-0123456789' });
}

async function graphql<T>(url: string, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ data?: T; errors?: Array<{ message: string }> }> {
  const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  return (await response.json()) as { data?: T; errors?: Array<{ message: string }> };
}

const NOTES = 'query ($orderId: ID!) { orderNotes(orderId: $orderId) { body authorStaffUserId } }';

const messages = (api: ReturnType<typeof startApi>) => api.logLines().map((line) => line['msg']);

async function stop(api: ReturnType<typeof startApi>): Promise<void> {
  api.child.kill('SIGTERM');
  expect((await api.exited()).code).toBe(0);
}

it('migrates its table at boot, declares its permission, serves its fields and runs its listener', async () => {
  const api = startApi();
  try {
    const url = await api.listening();
    await expect.poll(() => messages(api), { timeout: 10_000 }).toContain('permissions declared (1 new, 0 changed)');
    expect(messages(api)).toContain(`extension order-notes: applied ${HEAD}`);
    const { pool } = test.platform.database;
    expect((await pool.query('SELECT name FROM _shop_migrations_ext_order_notes')).rows).toEqual([{ name: HEAD }]);
    expect((await pool.query("SELECT source FROM permissions WHERE name = 'order_notes.manage'")).rows).toEqual([{ source: 'order-notes' }]);

    const login = await graphql<{ loginStaff: { accessToken: string } }>(url, 'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }', ADMIN);
    const admin = { authorization: `Bearer ${login.data?.loginStaff.accessToken}` };
    const added = await graphql<{ addOrderNote: { body: string; authorStaffUserId: string } }>(
      url,
      'mutation ($orderId: ID!, $body: String!) { addOrderNote(orderId: $orderId, body: $body) { body authorStaffUserId } }',
      { orderId, body: 'Gift: wrap it' },
      admin,
    );
    expect(added.data?.addOrderNote.body).toBe('Gift: wrap it');
    const ADD = 'mutation ($orderId: ID!, $body: String!) { addOrderNote(orderId: $orderId, body: $body) { body } }';
    for (const [variables, message] of [
      [{ orderId, body: ' ' }, 'body must be 1 to 2000 characters'],
      // The api refuses NUL in any GraphQL string before a resolver runs.
      [{ orderId, body: 'a\u0000b' }, 'text must not contain the NUL character (U+0000)'],
      [{ orderId: '999999', body: 'Lost' }, 'order 999999 does not exist'],
    ] as const) {
      expect(await graphql(url, ADD, variables, admin)).toMatchObject({ errors: [{ message }] });
    }
    expect(await graphql(url, NOTES, { orderId })).toMatchObject({ errors: [{ message: 'sign in as staff to do this' }] });

    // The event the order workflow emits when it fulfils the order, as the outbox holds it.
    const payload = { event_id: randomUUID(), schema_version: 1, occurred_at: new Date().toISOString(), order_id: orderId, order_number: 'N-1', from: 'PLACED', to: 'FULFILLED', reason: null };
    await pool.query('INSERT INTO outbox_events (event_id, name, payload) VALUES ($1, $2, $3)', [payload.event_id, 'order.status_changed', payload]);
    await expect
      .poll(async () => (await graphql<{ orderNotes: unknown[] }>(url, NOTES, { orderId }, admin)).data?.orderNotes, { timeout: 15_000 })
      .toEqual([
        { body: 'Gift: wrap it', authorStaffUserId: expect.any(String) },
        { body: 'Status changed from PLACED to FULFILLED', authorStaffUserId: null },
      ]);
  } finally {
    await stop(api);
  }
});

it('applies nothing and changes no permission when the api starts again', async () => {
  const api = startApi();
  try {
    await api.listening();
    await expect.poll(() => messages(api), { timeout: 10_000 }).toContain('permissions declared (0 new, 0 changed)');
    expect(messages(api)).toContain('extension order-notes: migrations up to date');
    const { pool } = test.platform.database;
    expect((await pool.query('SELECT count(*)::int AS n FROM _shop_migrations_ext_order_notes')).rows).toEqual([{ n: 1 }]);
  } finally {
    await stop(api);
  }
});

it('waits for the core migrations before applying its chain, when the api starts first', async () => {
  const fresh = await createTestDatabase('order_notes_first');
  const api = runApi({ PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'INFO', DATABASE_URL: fresh.url, CACHE_URL: inject('redisUrl'), SECRET_KEY: 'order-notes-test-secret-key-0123456789' });
  try {
    await api.listening();
    await expect.poll(() => messages(api), { timeout: 10_000 }).toContain('could not migrate the extensions or declare the permissions; retrying every 5000 ms');
    await applyMigrations(fresh.url);
    await expect.poll(() => messages(api), { timeout: 20_000 }).toContain(`extension order-notes: applied ${HEAD}`);
  } finally {
    await stop(api);
    await fresh.drop();
  }
});
