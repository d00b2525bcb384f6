import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKafka, startPostgres, startRedis, type ServerHandle } from '../../../../test/infra/servers.ts';
import { eventually } from '../../../../test/support/wait.ts';
import { startApi, type RunningApi } from '../support/start-api.ts';
import type { Readiness, Serving } from '../../src/health/routes.ts';

/** Each probe has 1.5 s; the issue allows 3 s from a dependency stopping to /ready reporting it. */
const DETECTION_LIMIT_MS = 3_000;

async function getJson(url: string): Promise<{ status: number; body: Readiness }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Readiness };
}

/** Polls /ready until it answers `status`; returns how long that took. */
async function msUntilReady(api: RunningApi, status: number, limitMs: number): Promise<number> {
  const started = performance.now();
  await eventually(
    async () => {
      const { status: got } = await getJson(`${api.url}/ready`);
      if (got !== status) throw new Error(`/ready still answered ${got} after ${Math.round(performance.now() - started)} ms`);
    },
    { timeoutMs: limitMs, intervalMs: 100 },
  );
  return performance.now() - started;
}

describe('/ready against real PostgreSQL, Redis and Kafka', () => {
  let postgres: ServerHandle;
  let redis: ServerHandle;
  let kafka: ServerHandle;
  let api: RunningApi;

  beforeAll(async () => {
    [postgres, redis, kafka] = await Promise.all([startPostgres(), startRedis(), startKafka()]);
    api = await startApi({ DATABASE_URL: postgres.url, CACHE_URL: redis.url, BROKER_ADDRESS: kafka.url });
  });

  afterAll(async () => {
    await api?.close();
    await Promise.all([postgres, redis, kafka].map((server) => server?.dispose()));
  });

  it('is 200 with every dependency healthy and external', async () => {
    await msUntilReady(api, 200, 10_000);
    const { body } = await getJson(`${api.url}/ready`);
    expect(body.status).toBe('ready');
    for (const name of ['database', 'cache', 'broker'] as const) {
      expect(body.dependencies[name]).toMatchObject({ status: 'healthy', mode: 'external' });
      expect(body.dependencies[name].latency_ms).toBeGreaterThanOrEqual(0);
    }
  });

  const cases: Array<[keyof Readiness['dependencies'], () => ServerHandle]> = [
    ['cache', () => redis],
    ['database', () => postgres],
    ['broker', () => kafka],
  ];

  for (const [dependency, server] of cases) {
    it(`answers 503 naming the ${dependency} within 3 s of its server stopping, and 200 after restart`, async () => {
      await server().stop();
      const detectedAfter = await msUntilReady(api, 503, DETECTION_LIMIT_MS);
      expect(detectedAfter).toBeLessThan(DETECTION_LIMIT_MS);

      const down = await getJson(`${api.url}/ready`);
      expect(down.body.status).toBe('not_ready');
      expect(down.body.dependencies[dependency].status).toBe('unhealthy');
      expect(down.body.dependencies[dependency].error).toEqual(expect.any(String));
      const others = Object.entries(down.body.dependencies).filter(([name]) => name !== dependency);
      for (const [, result] of others) expect(result).toMatchObject({ status: 'healthy' });

      expect((await getJson(`${api.url}/health`)).status).toBe(200);
      // The kubelet's probe: the api serves without the cache or the broker, not without its database.
      const serving = await fetch(`${api.url}/serving`);
      const servingBody = (await serving.json()) as Serving;
      if (dependency === 'database') {
        expect(serving.status).toBe(503);
        expect(servingBody).toMatchObject({ status: 'not_serving', dependencies: { database: { status: 'unhealthy' } } });
      } else {
        expect(serving.status).toBe(200);
        expect(servingBody).toMatchObject({ status: 'serving', dependencies: { database: { status: 'healthy', mode: 'external' } } });
      }

      await server().start();
      await msUntilReady(api, 200, 30_000);
      expect((await getJson(`${api.url}/health`)).body).toEqual({ status: 'ok' });
    });
  }
});
