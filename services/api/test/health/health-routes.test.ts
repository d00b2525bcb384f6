import Fastify from 'fastify';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import type { Probe } from '@shop/platform';
import { freePort } from '../../../../test/infra/proc.ts';
import { healthRoutes, type Dependencies } from '../../src/health/routes.ts';

/** A real round trip to a PostgreSQL server: SELECT 1 over a new connection. */
const postgresProbe = (connectionString: string): Probe => ({
  mode: 'external',
  async ping() {
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      await client.end().catch(() => undefined);
    }
  },
});

async function readyAnswer(errorText: boolean) {
  const down = `postgresql://postgres@127.0.0.1:${await freePort()}/postgres`;
  const up = postgresProbe(inject('postgresUrl'));
  const dependencies: Dependencies = { database: postgresProbe(down), cache: up, broker: up };
  const app = Fastify();
  healthRoutes(app, dependencies, { errorText });
  try {
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    const serving = await app.inject({ method: 'GET', url: '/serving' });
    return { ready: { status: ready.statusCode, body: ready.json() }, serving: { status: serving.statusCode, body: serving.json() } };
  } finally {
    await app.close();
  }
}

describe('/ready and /serving with the database down', () => {
  it('name the dependency and, outside production, the driver error', async () => {
    const { ready, serving } = await readyAnswer(true);
    expect(ready.status).toBe(503);
    expect(ready.body.dependencies.database).toMatchObject({ status: 'unhealthy', error: expect.stringContaining('ECONNREFUSED') });
    expect(ready.body.dependencies.cache).toMatchObject({ status: 'healthy' });
    expect(serving.body.dependencies.database.error).toContain('ECONNREFUSED');
  });

  it('in production name the dependency but keep the driver error (addresses, ports) out of the answer', async () => {
    const { ready, serving } = await readyAnswer(false);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({
      status: 'not_ready',
      dependencies: { database: { status: 'unhealthy', error: 'unavailable' }, cache: { status: 'healthy' } },
    });
    expect(serving.status).toBe(503);
    expect(serving.body.dependencies.database).toMatchObject({ status: 'unhealthy', error: 'unavailable' });
    expect(JSON.stringify([ready.body, serving.body])).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });
});
