import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { applyMigrations, createLogger, loadConfig, openPlatform, type Platform } from '@shop/platform';
import { createTestDatabase } from '../../../../test/infra/isolation.ts';
import { buildApp } from '../../src/app.ts';
import { liftRateLimits } from '../../../../test/support/rate-limits.ts';

export interface RunningApi {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly platform: Platform;
  close(): Promise<void>;
}

/** The api in this process, listening on a free loopback port, configured by `env` alone. */
export async function startApi(env: NodeJS.ProcessEnv = {}): Promise<RunningApi> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'ERROR', PORT: '0', ...env });
  const logger = createLogger({ level: config.logLevel, service: 'api' });
  if (config.databaseUrl !== undefined) await liftRateLimits(config.databaseUrl);
  const platform = await openPlatform(config, logger, 'api');
  const app = await buildApp(platform);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: address,
    app,
    platform,
    async close() {
      await app.close();
      await platform.close();
    },
  };
}

/** startApi over a migrated database of its own and the shared Redis; close() also drops the database. */
export async function startApiOnOwnDatabase(name: string, env: NodeJS.ProcessEnv = {}): Promise<RunningApi> {
  const database = await createTestDatabase(name);
  await applyMigrations(database.url);
  const api = await startApi({ DATABASE_URL: database.url, CACHE_URL: inject('redisUrl'), ...env });
  return {
    ...api,
    async close() {
      await api.close();
      await database.drop();
    },
  };
}
