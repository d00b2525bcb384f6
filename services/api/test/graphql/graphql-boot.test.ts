import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { applyMigrations, createLogger, loadConfig, openPlatform, type Platform } from '@shop/platform';
import { CORE_PERMISSIONS } from '@shop/domain/auth';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { declarePermissions } from '../../src/auth/declare-permissions.ts';

let database: TestDatabase;
let platform: Platform;

beforeAll(async () => {
  database = await createTestDatabase('graphql_boot');
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'ERROR', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') });
  platform = await openPlatform(config, createLogger({ level: 'ERROR', service: 'api' }), 'api');
});

afterAll(async () => {
  await platform?.close();
  await database?.drop();
});

it('declares the core permissions at boot, retrying until the database is migrated, and changes nothing the second time', async () => {
  const warnings: unknown[] = [];
  const logger = Object.assign(Object.create(platform.logger) as typeof platform.logger, {
    warn: (...args: unknown[]) => void warnings.push(args),
  });
  const { prisma } = platform.database;
  let attempts = 0;
  // Defined, not assigned: an assignment would reach the client's own proxy through the prototype.
  const counting = Object.create(prisma, {
    $transaction: {
      value: (...args: Parameters<typeof prisma.$transaction>) => {
        attempts += 1;
        return prisma.$transaction(...args);
      },
    },
  }) as typeof prisma;
  const declaration = declarePermissions(counting, logger, { retryMs: 50 });
  await expect.poll(() => warnings.length, { timeout: 10_000 }).toBe(1);
  // Retries every 50 ms, warning only once per outage: six attempts have failed once the seventh starts.
  await expect.poll(() => attempts, { timeout: 10_000 }).toBeGreaterThanOrEqual(7);
  expect(warnings).toHaveLength(1);

  await applyMigrations(database.url);
  await declaration.done;
  const names = (await platform.database.prisma.permission.findMany({ orderBy: { name: 'asc' } })).map((p) => p.name);
  expect(names).toEqual(CORE_PERMISSIONS.map((p) => p.name).sort());

  const again = declarePermissions(platform.database.prisma, logger, { retryMs: 50 });
  await again.done;
  expect(await platform.database.prisma.permission.count()).toBe(CORE_PERMISSIONS.length);
  expect(warnings).toHaveLength(1);
});
