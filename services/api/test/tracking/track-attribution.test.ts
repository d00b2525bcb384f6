import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import pg from 'pg';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { runApi } from '../support/run-api.ts';
import { newEntityId, newSession, storedEvents } from '../support/tracking.ts';

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase('track_attribution');
  await applyMigrations(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

it('the api process credits a tracked click with a later cart add (main.ts runs the attribution listeners)', async () => {
  const api = runApi({ PORT: '0', NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') });
  try {
    const url = await api.listening();
    const session = newSession();
    const response = await fetch(`${url}/track`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': session },
      body: JSON.stringify({ event_type: 'click', entity_type: 'banner', entity_id: newEntityId(), page_url: '/' }),
    });
    expect(response.status).toBe(202);
    expect(await storedEvents(pool, session)).toHaveLength(1);

    // The event addCartLine emits, written to the outbox as it would be.
    const now = new Date().toISOString();
    const payload = {
      event_id: randomUUID(),
      schema_version: 1,
      occurred_at: now,
      cart_id: '1',
      cart_line_id: '1',
      customer_id: null,
      session_id: session,
      product_id: '77',
      category_ids: ['5', '6'],
      brand_id: '9',
      quantity: 1,
      added_at: now,
    };
    await pool.query('INSERT INTO outbox_events (event_id, name, payload) VALUES ($1, $2, $3)', [
      payload.event_id,
      'cart.item_added',
      payload,
    ]);

    const attributions = async () =>
      (
        await pool.query(
          `SELECT a.attribution_type, a.product_id::text AS product_id, a.category_id::text AS category_id, a.brand_id::text AS brand_id
             FROM tracking_attributions a JOIN tracking_events e ON e.id = a.tracking_event_id WHERE e.session_id = $1`,
          [session],
        )
      ).rows;
    await expect
      .poll(attributions, { timeout: 10_000 })
      .toEqual([{ attribution_type: 'cart_add', product_id: '77', category_id: '5', brand_id: '9' }]);
  } finally {
    api.child.kill('SIGTERM');
    await api.exited();
  }
});
