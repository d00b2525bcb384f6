// A migrated database of the test file's own, with the pool and Prisma client the platform opens over it.
import { randomBytes } from 'node:crypto';
import { createLogger } from '@shop/runtime';
import { createTestDatabase } from '../../../../test/infra/isolation.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrations/index.ts';
import { createMetricsRegistry } from '../../src/metrics/registry.ts';

export interface SecretsDatabase {
  readonly database: Database;
  readonly url: string;
  close(): Promise<void>;
}

export async function openSecretsDatabase(name: string): Promise<SecretsDatabase> {
  const test = await createTestDatabase(name);
  await applyMigrations(test.url);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: test.url });
  const database = await openDatabase(config, createLogger({ level: 'ERROR', service: 'test' }), createMetricsRegistry('test'));
  return {
    database,
    url: test.url,
    async close() {
      await database.close();
      await test.drop();
    },
  };
}

export const newMasterKey = (): Buffer => randomBytes(32);
