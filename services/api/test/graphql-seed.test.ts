import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import pg from 'pg';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase } from '../../../test/infra/isolation.ts';
import { DEMO_PRODUCTS, seedAdminFrom, seedShop } from '../src/seed.ts';
import { openGraphqlApi, type GraphqlApi } from './support/graphql-harness.ts';

const SEED = path.resolve(import.meta.dirname, '../src/seed.ts');
const run = promisify(execFile);

let api: GraphqlApi;
let databaseUrl: string;

beforeAll(async () => {
  api = await openGraphqlApi('graphql_seed');
  databaseUrl = api.platform.database.url;
});

afterAll(async () => {
  await api?.close();
});

async function seedCli(env: NodeJS.ProcessEnv, args: readonly string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', LOG_LEVEL: 'ERROR', CACHE_URL: inject('redisUrl') };
  try {
    const { stdout, stderr } = await run(process.execPath, [SEED, ...args], { env: { ...base, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('seedShop', () => {
  const admin = { email: 'owner@shop.test', password: 'owner-password-1', name: 'Owner' };
  const seed = () => seedShop(api.outbox.transaction, { emit: api.outbox.emit, now: () => new Date() }, admin);

  it('creates the admin and the demo catalog, then changes nothing on a second run', async () => {
    const first = await seed();
    expect(first).toMatchObject({
      adminCreated: true,
      created: { channels: 1, locations: 1, brands: 3, categories: 6, products: DEMO_PRODUCTS.length },
    });
    const counts = async () => ({
      products: await api.prisma.product.count(),
      stock: await api.prisma.stockLevel.findMany({ orderBy: { productId: 'asc' } }),
      events: await api.prisma.outboxEvent.count(),
    });
    const before = await counts();
    const second = await seed();
    expect(second).toMatchObject({
      adminCreated: false,
      channelId: first.channelId,
      created: { channels: 0, locations: 0, brands: 0, categories: 0, products: 0 },
    });
    expect(await counts()).toEqual(before);
  });

  it('leaves a storefront to browse and an admin who can sign in', async () => {
    const { products } = await api.data<{ products: { nodes: { sku: string; available: number }[] } }>(
      '{ products(first: 50) { nodes { sku available } } }',
      {},
      { 'x-channel-id': 'web' },
    );
    expect(products.nodes.map((p) => p.sku)).toEqual(DEMO_PRODUCTS.map((p) => p.sku));
    expect(products.nodes.map((p) => p.available)).toEqual(DEMO_PRODUCTS.map((p) => p.stock));
    const login = await api.data<{ loginStaff: { accessToken: string } }>(
      'mutation { loginStaff(email: "owner@shop.test", password: "owner-password-1") { accessToken } }',
    );
    expect(login.loginStaff.accessToken).toEqual(expect.any(String));
  });
});

describe('npm run db:seed', () => {
  it('names a missing variable in one line', async () => {
    expect(() => seedAdminFrom({ SEED_ADMIN_PASSWORD: 'x' })).toThrow(/^SEED_ADMIN_EMAIL is not set/);
    const noEmail = await seedCli({ DATABASE_URL: databaseUrl, SEED_ADMIN_PASSWORD: 'owner-password-1' });
    expect(noEmail.code).toBe(1);
    expect(noEmail.stderr).toBe('seed error: SEED_ADMIN_EMAIL is not set: give the email of the admin staff user to create\n');
    const noPassword = await seedCli({ DATABASE_URL: databaseUrl, SEED_ADMIN_EMAIL: 'cli@shop.test' });
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toMatch(/^seed error: SEED_ADMIN_PASSWORD is not set: .*\n$/);
  });

  it('names the variable whose value the rules refuse', async () => {
    const weak = await seedCli({ DATABASE_URL: databaseUrl, SEED_ADMIN_EMAIL: 'cli@shop.test', SEED_ADMIN_PASSWORD: 'short' });
    expect(weak.code).toBe(1);
    expect(weak.stderr).toBe('seed error: SEED_ADMIN_PASSWORD: password must be at least 10 characters\n');
  });

  it('seeds the database at DATABASE_URL and is idempotent', async () => {
    const env = { DATABASE_URL: databaseUrl, SEED_ADMIN_EMAIL: 'cli@shop.test', SEED_ADMIN_PASSWORD: 'cli-password-12' };
    const first = await seedCli(env);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toMatch(/^seeded: admin cli@shop.test created; channel web \(id \d+\); created 0 products/);
    const second = await seedCli(env);
    expect(second.stdout).toMatch(/^seeded: admin cli@shop.test already there; /);
    expect(await api.prisma.staffUser.count({ where: { email: 'cli@shop.test' } })).toBe(1);
  });

  it("with --admin-only creates the admin alone, as the operator's seed Job runs it on a first install", async () => {
    const database = await createTestDatabase('seed_admin_only');
    try {
      await applyMigrations(database.url);
      const env = { DATABASE_URL: database.url, SEED_ADMIN_EMAIL: 'first@shop.test', SEED_ADMIN_PASSWORD: 'first-password-12' };
      const first = await seedCli(env, ['--admin-only']);
      expect(first).toMatchObject({ code: 0, stdout: 'seeded: admin first@shop.test created\n' });
      expect((await seedCli(env, ['--admin-only'])).stdout).toBe('seeded: admin first@shop.test already there\n');
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const counts = await client.query<{ admins: string; products: string; channels: string }>(
        "SELECT (SELECT count(*) FROM staff_users WHERE email = 'first@shop.test') AS admins, (SELECT count(*) FROM products) AS products, (SELECT count(*) FROM channels) AS channels",
      );
      await client.end();
      expect(counts.rows[0]).toEqual({ admins: '1', products: '0', channels: '0' });
    } finally {
      await database.drop();
    }
  });

  it('refuses an unknown argument in one line', async () => {
    const refused = await seedCli({ DATABASE_URL: databaseUrl, SEED_ADMIN_EMAIL: 'x@shop.test', SEED_ADMIN_PASSWORD: 'x-password-123' }, [
      '--catalog-only',
    ]);
    expect(refused).toMatchObject({ code: 1, stderr: 'seed error: unknown argument --catalog-only: the only one is --admin-only\n' });
  });
});
