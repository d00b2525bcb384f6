import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/infra/isolation.ts';
import { runApi } from './support/run-api.ts';
import type { Readiness } from '../src/health/routes.ts';

/** A "broker" that accepts connections and never answers, so /ready takes its full probe timeout. */
let silentBroker: Server;
const sockets = new Set<Socket>();
let connections = 0;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('api_shutdown');
  silentBroker = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silentBroker.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silentBroker?.close(resolve));
  await database?.drop();
});

it('finishes an in-flight request after SIGTERM, then exits 0', async () => {
  const address = silentBroker.address();
  if (address === null || typeof address === 'string') throw new Error('no broker address');
  const api = runApi({
    PORT: '0',
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    CACHE_URL: inject('redisUrl'),
    BROKER_ADDRESS: `127.0.0.1:${address.port}`,
  });
  const url = await api.listening();

  const inFlight = fetch(`${url}/ready`);
  // Only the readiness probe connects to the broker: once it has, the request is in flight.
  await expect.poll(() => connections, { timeout: 10_000 }).toBeGreaterThan(0);
  api.child.kill('SIGTERM');

  const response = await inFlight;
  expect(response.status).toBe(503);
  const body = (await response.json()) as Readiness;
  expect(body.dependencies.broker).toMatchObject({ status: 'unhealthy', error: 'no answer within 1500 ms' });
  expect(body.dependencies.database.status).toBe('healthy');
  expect((await api.exited()).code).toBe(0);
  expect(api.output()).toContain('stopping: finishing in-flight requests');
});
