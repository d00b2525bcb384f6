// The order-notes extension through the real api process: discovered in extensions/, its tables migrated
// under its own version table at boot (and nothing the second time), its permission upserted, its
// GraphQL fields served, its listener run by the api's outbox and its settings set by staff and read by
// its code. The last test starts the api before the core migrations, as the api may be: the extension's
// chain waits for them. Its workflow runs in test/workflows/extension-workflows.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { ensureAdmin } from '@shop/domain/auth';
import { applyMigrations, readStoredSecret } from '@shop/platform';
import { createTestDatabase } from '../../../test/infra/isolation.ts';
import { openTestPlatform, type TestPlatform } from '../../../test/support/test-platform.ts';
import { runApi } from '../../../services/api/test/support/run-api.ts';

const ADMIN = { email: 'notes-admin@shop.test', password: 'notes-admin-password', name: 'Notes Admin' };
const CHAIN = ['20261125150000_create_order_notes', '20261127100000_create_order_note_digests'];

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
  return runApi({
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'INFO',
    DATABASE_URL: test.database.url,
    CACHE_URL: inject('redisUrl'),
    SECRET_KEY: 'order-notes-test-secret-key-0123456789',
  });
}

async function graphql<T>(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ data?: T; errors?: Array<{ message: string }> }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: T; errors?: Array<{ message: string }> };
}

const NOTES = 'query ($orderId: ID!) { orderNotes(orderId: $orderId) { body authorStaffUserId } }';
const ADD = 'mutation ($orderId: ID!, $body: String!) { addOrderNote(orderId: $orderId, body: $body) { body } }';

async function signInAdmin(url: string): Promise<Record<string, string>> {
  const login = await graphql<{ loginStaff: { accessToken: string } }>(
    url,
    'mutation ($email: String!, $password: String!) { loginStaff(email: $email, password: $password) { accessToken } }',
    ADMIN,
  );
  return { authorization: `Bearer ${login.data?.loginStaff.accessToken}` };
}

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
    expect(messages(api)).toContain(`extension order-notes: applied ${CHAIN.join(', ')}`);
    const { pool } = test.platform.database;
    expect((await pool.query('SELECT name FROM _shop_migrations_ext_order_notes ORDER BY name')).rows).toEqual(
      CHAIN.map((name) => ({ name })),
    );
    expect((await pool.query("SELECT source FROM permissions WHERE name = 'order_notes.manage'")).rows).toEqual([
      { source: 'order-notes' },
    ]);

    const admin = await signInAdmin(url);
    const added = await graphql<{ addOrderNote: { body: string; authorStaffUserId: string } }>(
      url,
      'mutation ($orderId: ID!, $body: String!) { addOrderNote(orderId: $orderId, body: $body) { body authorStaffUserId } }',
      { orderId, body: 'Gift: wrap it' },
      admin,
    );
    expect(added.data?.addOrderNote.body).toBe('Gift: wrap it');
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
    const payload = {
      event_id: randomUUID(),
      schema_version: 1,
      occurred_at: new Date().toISOString(),
      order_id: orderId,
      order_number: 'N-1',
      from: 'PLACED',
      to: 'FULFILLED',
      reason: null,
    };
    await pool.query('INSERT INTO outbox_events (event_id, name, payload) VALUES ($1, $2, $3)', [
      payload.event_id,
      'order.status_changed',
      payload,
    ]);
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
    expect((await pool.query('SELECT count(*)::int AS n FROM _shop_migrations_ext_order_notes')).rows).toEqual([{ n: 2 }]);
  } finally {
    await stop(api);
  }
});

const SETTING_FIELDS = 'extension key type secret value isSet default';
const SETTINGS = `query ($extension: String!) { extensionSettings(extension: $extension) { ${SETTING_FIELDS} } }`;
const SET = `mutation ($extension: String!, $key: String!, $value: JSON!) { setExtensionSetting(extension: $extension, key: $key, value: $value) { ${SETTING_FIELDS} } }`;
const RESET = `mutation ($extension: String!, $key: String!) { resetExtensionSetting(extension: $extension, key: $key) { ${SETTING_FIELDS} } }`;
const SET_SECRET = `mutation ($extension: String!, $key: String!, $value: String!) { setExtensionSecret(extension: $extension, key: $key, value: $value) { ${SETTING_FIELDS} } }`;

/** Inserts an order.status_changed event as the outbox holds it and waits until the api's outbox delivered it to the listener. */
async function statusChanged(to: string): Promise<void> {
  const { pool } = test.platform.database;
  const payload = {
    event_id: randomUUID(),
    schema_version: 1,
    occurred_at: new Date().toISOString(),
    order_id: orderId,
    order_number: 'N-1',
    from: 'FULFILLED',
    to,
    reason: null,
  };
  const { rows } = await pool.query<{ id: string }>(
    'INSERT INTO outbox_events (event_id, name, payload) VALUES ($1, $2, $3) RETURNING id',
    [payload.event_id, 'order.status_changed', payload],
  );
  const delivered = () =>
    pool.query("SELECT 1 FROM outbox_deliveries WHERE event_id = $1 AND listener = 'order-notes.status-change' AND status = 'done'", [
      rows[0]?.id,
    ]);
  await expect.poll(async () => (await delivered()).rowCount, { timeout: 15_000 }).toBe(1);
}

it('lets staff set its declared settings, keeps the secret encrypted and never answers it, and its code reads them', async () => {
  const api = startApi();
  try {
    const url = await api.listening();
    const admin = await signInAdmin(url);
    const { pool } = test.platform.database;
    const extension = 'order-notes';
    expect((await graphql(url, SETTINGS, { extension }, admin)).data).toEqual({
      extensionSettings: [
        { extension, key: 'status_notes', type: 'boolean', secret: false, value: true, isSet: false, default: true },
        { extension, key: 'max_note_length', type: 'integer', secret: false, value: 2000, isSet: false, default: 2000 },
        { extension, key: 'digest_signing_key', type: 'string', secret: true, value: null, isSet: false, default: null },
      ],
    });

    for (const [query, variables, message] of [
      [SET, { extension, key: 'max_note_length', value: '12' }, 'value of max_note_length must be a whole number from 1 to 2000'],
      [SET, { extension, key: 'max_note_length', value: 1.5 }, 'value of max_note_length must be a whole number from 1 to 2000'],
      [SET, { extension, key: 'max_note_length', value: 0 }, 'value of max_note_length must be a whole number from 1 to 2000'],
      [SET, { extension, key: 'max_note_length', value: 2001 }, 'value of max_note_length must be a whole number from 1 to 2000'],
      [SET, { extension, key: 'status_notes', value: 'no' }, 'value of status_notes must be true or false'],
      [
        SET,
        { extension, key: 'colour', value: 'red' },
        'colour is not a setting of extension order-notes; its settings: status_notes, max_note_length, digest_signing_key',
      ],
      [
        SET,
        { extension, key: 'digest_signing_key', value: 'k' },
        'digest_signing_key of extension order-notes: it is a secret: set it with setExtensionSecret',
      ],
      [
        SET_SECRET,
        { extension, key: 'max_note_length', value: '10' },
        'max_note_length of extension order-notes: it is not a secret: set it with setExtensionSetting',
      ],
      [SET, { extension: 'reviews', key: 'x', value: 1 }, 'extension "reviews" is not installed; installed: order-notes, s3-storage'],
      [
        'mutation { setSetting(key: "ext.order-notes.max_note_length", value: 10) }',
        {},
        'keys starting with "ext." are extension settings: set them with setExtensionSetting',
      ],
    ] as const) {
      expect(await graphql(url, query, variables, admin)).toMatchObject({ errors: [{ message, extensions: { code: 'BAD_USER_INPUT' } }] });
    }
    expect(await graphql(url, SETTINGS, { extension })).toMatchObject({ errors: [{ message: 'sign in as staff to do this' }] });

    expect((await graphql(url, SET, { extension, key: 'max_note_length', value: 10 }, admin)).data).toEqual({
      setExtensionSetting: { extension, key: 'max_note_length', type: 'integer', secret: false, value: 10, isSet: true, default: 2000 },
    });
    expect((await pool.query("SELECT value FROM settings WHERE key = 'ext.order-notes.max_note_length'")).rows).toEqual([{ value: 10 }]);
    // The resolver reads it through the extension's context.
    expect(await graphql(url, ADD, { orderId, body: 'eleven char' }, admin)).toMatchObject({
      errors: [{ message: 'body must be 1 to 10 characters' }],
    });
    expect((await graphql(url, ADD, { orderId, body: 'ten chars!' }, admin)).data).toEqual({ addOrderNote: { body: 'ten chars!' } });
    expect((await graphql(url, RESET, { extension, key: 'max_note_length' }, admin)).data).toMatchObject({
      resetExtensionSetting: { value: 2000, isSet: false },
    });
    expect((await graphql(url, ADD, { orderId, body: 'eleven char' }, admin)).data).toEqual({ addOrderNote: { body: 'eleven char' } });

    const secret = 'digest-key-5f1c9a';
    expect((await graphql(url, SET_SECRET, { extension, key: 'digest_signing_key', value: secret }, admin)).data).toEqual({
      setExtensionSecret: { extension, key: 'digest_signing_key', type: 'string', secret: true, value: null, isSet: true, default: null },
    });
    const stored = await pool.query<{ key: string; ciphertext: Buffer }>('SELECT key, ciphertext FROM stored_secrets');
    expect(stored.rows.map((row) => row.key)).toEqual(['ext.order_notes.digest_signing_key']);
    expect(stored.rows[0]?.ciphertext.includes(secret)).toBe(false);
    const { prisma } = test.platform.database;
    await expect(readStoredSecret(prisma, test.platform.masterKeys, 'ext.order_notes.digest_signing_key')).resolves.toBe(secret);
    expect(
      (await graphql<{ extensionSettings: Array<{ key: string; value: unknown; isSet: boolean }> }>(url, SETTINGS, { extension }, admin))
        .data?.extensionSettings,
    ).toContainEqual(expect.objectContaining({ key: 'digest_signing_key', value: null, isSet: true }));

    // The listener reads status_notes: switched off, a status change adds no note; on again, it does.
    const statusNotes = async () =>
      (await pool.query('SELECT body FROM order_notes WHERE author_staff_user_id IS NULL ORDER BY id')).rows.map(
        (row: { body: string }) => row.body,
      );
    const before = await statusNotes();
    await graphql(url, SET, { extension, key: 'status_notes', value: false }, admin);
    await statusChanged('COMPLETED');
    expect(await statusNotes()).toEqual(before);
    await graphql(url, SET, { extension, key: 'status_notes', value: true }, admin);
    await statusChanged('CANCELLED');
    expect(await statusNotes()).toEqual([...before, 'Status changed from FULFILLED to CANCELLED']);
  } finally {
    await stop(api);
  }
});

it('waits for the core migrations before applying its chain, when the api starts first', async () => {
  const fresh = await createTestDatabase('order_notes_first');
  const api = runApi({
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'INFO',
    DATABASE_URL: fresh.url,
    CACHE_URL: inject('redisUrl'),
    SECRET_KEY: 'order-notes-test-secret-key-0123456789',
  });
  try {
    await api.listening();
    await expect
      .poll(() => messages(api), { timeout: 10_000 })
      .toContain('could not migrate the extensions or declare the permissions; retrying every 5000 ms');
    await applyMigrations(fresh.url);
    await expect.poll(() => messages(api), { timeout: 20_000 }).toContain(`extension order-notes: applied ${CHAIN.join(', ')}`);
  } finally {
    await stop(api);
    await fresh.drop();
  }
});
