import http from 'node:http';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import pg from 'pg';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { applyMigrations, createLogger, loadConfig, openPlatform } from '@shop/platform';
import { trackingRoutes } from '../../src/tracking/routes.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { runApi } from '../support/run-api.ts';
import { startApi } from '../support/start-api.ts';
import { newEntityId, newSession, storedEvents, track } from '../support/tracking.ts';

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase('track_shutdown');
  await applyMigrations(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const event = () => ({ event_type: 'click', entity_type: 'banner', entity_id: newEntityId(), page_url: '/' });

it("flushes the buffer from the app's close hook, after the requests in flight have finished", async () => {
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') });
  const platform = await openPlatform(config, createLogger({ level: 'ERROR', service: 'test' }), 'test');
  const app = Fastify();
  let requests = 0;
  app.addHook('onRequest', async () => void (requests += 1));
  const endpoint = trackingRoutes(app, { ...platform, metrics: new Registry() }, { buffer: { flushIntervalMs: 60_000 } });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const session = newSession();
  const first = await fetch(`${address}/track`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-id': session, connection: 'close' },
    body: JSON.stringify([event(), event()]),
  });
  expect(first.status).toBe(202);
  // A request whose body is still arriving when the app starts closing.
  const body = JSON.stringify([event(), event()]);
  const request = http.request(`${address}/track`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-session-id': session,
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    },
  });
  const inFlight = new Promise<number | undefined>((resolve, reject) => {
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('error', reject);
  });
  request.write(body.slice(0, 10));
  await expect.poll(() => requests).toBe(2); // the app has the second request, whose body has not all arrived
  const closing = app.close();
  request.end(body.slice(10));
  // The flush interval is a minute away: only the close hook can have written the in-flight request's events.
  expect(await inFlight).toBe(202);
  await closing;
  expect(endpoint.buffer.size).toBe(0);
  expect(await storedEvents(pool, session, 4, 0)).toHaveLength(4);
  await platform.close();
});

it('writes the accepted events when the app closes, before the database is closed', async () => {
  const api = await startApi({ DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') });
  const session = newSession();
  for (let index = 0; index < 5; index += 1) expect((await track(api.app, { session, body: [event(), event()] })).statusCode).toBe(202);
  // Well inside the flush interval: nothing is written yet unless close writes it.
  await api.close();
  expect(await storedEvents(pool, session, 10, 0)).toHaveLength(10);
});

it('writes the accepted events on SIGTERM, then exits 0', async () => {
  const api = runApi({ PORT: '0', NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') });
  const url = await api.listening();
  const session = newSession();
  const responses = await Promise.all(
    Array.from({ length: 5 }, () =>
      fetch(`${url}/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': session },
        body: JSON.stringify([event(), event()]),
      }),
    ),
  );
  expect(responses.map((response) => response.status)).toEqual([202, 202, 202, 202, 202]);
  api.child.kill('SIGTERM');
  expect((await api.exited()).code).toBe(0);
  expect(await storedEvents(pool, session, 10, 0)).toHaveLength(10);
});
