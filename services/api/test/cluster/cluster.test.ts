import pg from 'pg';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { allProcessStats } from '../../../../test/infra/proc-stat.ts';
import { liftRateLimits } from '../../../../test/support/rate-limits.ts';
import { eventually } from '../../../../test/support/wait.ts';
import type { ServiceProcess } from '../../../../test/support/service-process.ts';
import { runApi } from '../support/run-api.ts';
import { newEntityId, newSession } from '../support/tracking.ts';

let database: TestDatabase;
let pool: pg.Pool;
const started: ServiceProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase('api_cluster');
  await applyMigrations(database.url);
  await liftRateLimits(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  for (const api of started) api.child.kill('SIGKILL');
  await pool?.end();
  await database?.drop();
});

function startCluster(workers: number): ServiceProcess {
  const api = runApi({
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'DEBUG',
    API_WORKERS: String(workers),
    DATABASE_URL: database.url,
    CACHE_URL: inject('redisUrl'),
  });
  started.push(api);
  return api;
}

/** Resolves once `count` log lines match, so every worker is up (each logs that it listens). */
async function logged(api: ServiceProcess, message: string, count: number, timeoutMs = 30_000): Promise<void> {
  await eventually(
    () => {
      if (api.logLines().filter((line) => line.msg === message).length < count)
        throw new Error(`expected ${count} "${message}" lines:\n${api.output()}`);
    },
    {
      timeoutMs,
      abortReason: () =>
        api.child.exitCode === null && api.child.signalCode === null
          ? undefined
          : `the api exited before logging ${count} "${message}" lines:\n${api.output()}`,
    },
  );
}

/** A fresh connection per request: the primary hands connections to the workers in turn. */
const get = (url: string) => fetch(url, { headers: { connection: 'close' } });

async function workerPids(primary: number): Promise<number[]> {
  return (await allProcessStats()).filter((stat) => stat.ppid === primary).map((stat) => stat.pid);
}

it('serves one port from API_WORKERS processes, reports the pod in /metrics and writes every beacon on SIGTERM', async () => {
  const api = startCluster(2);
  const url = await api.listening();
  await logged(api, `Server listening at ${url}`, 2);

  const requests = 40;
  for (let i = 0; i < requests; i += 1) expect((await get(`${url}/health`)).status).toBe(200);
  const servedBy = new Set(
    api
      .logLines()
      .filter((line) => line.msg === 'request completed' && line.url === '/health')
      .map((line) => line.worker),
  );
  expect(servedBy).toEqual(new Set([1, 2]));

  const metrics = await (await get(`${url}/metrics`)).text();
  expect(metrics).toContain(`http_requests_total{method="GET",route="/health",status="200",service="api"} ${requests}`);
  // The backlog is the database's, the same for every worker: reported once, not summed.
  expect(metrics).toMatch(/^outbox_pending_events\{kind="topic",service="api"\} 0$/m);

  const session = newSession('cluster');
  const beacons = 30;
  const accepted = await Promise.all(
    Array.from({ length: beacons }, async () => {
      const response = await fetch(`${url}/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': session, connection: 'close' },
        body: JSON.stringify({
          event_type: 'impression',
          entity_type: 'banner',
          entity_id: newEntityId(),
          page_url: 'https://shop.example/',
        }),
      });
      return response.status;
    }),
  );
  expect(accepted).toEqual(Array.from({ length: beacons }, () => 202));
  api.child.kill('SIGTERM');

  expect(await api.exited()).toEqual({ code: 0, signal: null });
  expect(api.logLines().filter((line) => line.msg === 'stopped')).toHaveLength(2);
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tracking_events WHERE session_id = $1', [session]);
  expect(rows[0]?.n).toBe(beacons);
});

it('replaces a worker that dies and keeps serving', async () => {
  const api = startCluster(2);
  const url = await api.listening();
  await logged(api, `Server listening at ${url}`, 2);
  const [victim] = await workerPids(api.child.pid as number);
  if (victim === undefined) throw new Error('no worker process found');

  process.kill(victim, 'SIGKILL');
  await logged(api, `Server listening at ${url}`, 3);
  expect(api.logLines().find((line) => line.signal === 'SIGKILL')?.msg).toBe(`api worker ${victim} exited; starting another in 1000 ms`);
  expect(await workerPids(api.child.pid as number)).toHaveLength(2);
  for (let i = 0; i < 4; i += 1) expect((await get(`${url}/health`)).status).toBe(200);

  api.child.kill('SIGTERM');
  expect(await api.exited()).toEqual({ code: 0, signal: null });
});
