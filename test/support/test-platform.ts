// A migrated database of the test file's own and the platform opened over it, the shared Redis as its cache.
import { inject } from 'vitest';
import { applyMigrations, createLogger, loadConfig, openPlatform, type Platform } from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../infra/isolation.ts';

export interface TestPlatform {
  readonly database: TestDatabase;
  readonly platform: Platform;
  /** Closes the platform, then drops the database. */
  close(): Promise<void>;
}

export async function openTestPlatform(name: string, env: Record<string, string> = {}): Promise<TestPlatform> {
  const database = await createTestDatabase(name);
  await applyMigrations(database.url);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl'), ...env });
  const platform = await openPlatform(config, createLogger({ level: 'ERROR', service: 'test' }), 'test');
  return {
    database,
    platform,
    async close() {
      await platform.close();
      await database.drop();
    },
  };
}
