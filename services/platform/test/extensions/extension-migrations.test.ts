import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/infra/isolation.ts';
import type { DiscoveredExtension } from '../../src/extensions/discovery.ts';
import { extensionRevisionMismatch, migrateExtensions } from '../../src/extensions/extension-migrations.ts';
import { applyMigrations } from '../../src/db/migrations/apply-migrations.ts';
import { MigrationFailedError } from '../../src/db/migrations/errors.ts';

let database: TestDatabase;
let pool: pg.Pool;
let dir: string;

beforeAll(async () => {
  database = await createTestDatabase('extension_migrations');
  pool = new pg.Pool({ connectionString: database.url, max: 3 });
  dir = await mkdtemp(path.join(tmpdir(), 'extension-migrations-'));
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
  await rm(dir, { recursive: true, force: true });
});

async function addMigration(extensionDir: string, name: string, sql: string): Promise<void> {
  await mkdir(path.join(extensionDir, 'migrations', name), { recursive: true });
  await writeFile(path.join(extensionDir, 'migrations', name, 'migration.sql'), sql);
}

/** The extension as discovery returns it, with `head` as its packaged head. */
function packaged(id: string, head: string): DiscoveredExtension {
  return {
    id,
    version: '1.0.0',
    packageName: `@test/${id}`,
    dir: path.join(dir, id),
    source: 'in-tree',
    manifest: { id, migrations: { dir: 'migrations', head } },
  };
}

const tableExists = async (name: string) =>
  (await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [name])).rows[0]?.found !== null;
const recorded = async (table: string) =>
  (await pool.query<{ name: string }>(`SELECT name FROM ${table} ORDER BY name`)).rows.map((row) => row.name);

describe('an extension migration chain', () => {
  it('waits for the core migrations, leaving the schema empty for them', async () => {
    const ext = path.join(dir, 'early');
    await addMigration(ext, '20260101000000_early', 'CREATE TABLE early (id bigserial PRIMARY KEY);');
    await expect(migrateExtensions(pool, [packaged('early', '20260101000000_early')])).rejects.toThrow(
      "the core migrations are not applied yet (npm run db:migrate); the extensions' migrations run after them",
    );
    expect((await pool.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).rows).toEqual([{ n: 0 }]);
    await applyMigrations(database.url);
  });

  it('is applied under its own version table, and nothing the second time', async () => {
    const ext = path.join(dir, 'gift-wrap');
    await addMigration(ext, '20260101000000_papers', 'CREATE TABLE gift_wrap_papers (id bigserial PRIMARY KEY, name text NOT NULL);');
    await addMigration(ext, '20260102000000_colour', 'ALTER TABLE gift_wrap_papers ADD COLUMN colour text;');
    const extensions = [
      packaged('gift-wrap', '20260102000000_colour'),
      { ...packaged('no-tables', 'none'), manifest: { id: 'no-tables' } },
    ];
    expect(await extensionRevisionMismatch(pool, extensions)).toBe(
      "extension gift-wrap: the database is at revision none but the package's head is 20260102000000_colour; run npm run db:migrate (on Kubernetes, the Shop's migration Job) or start the api first, either applies extension migrations",
    );

    expect(await migrateExtensions(pool, extensions)).toEqual(new Map([['gift-wrap', ['20260101000000_papers', '20260102000000_colour']]]));
    expect(await recorded('_shop_migrations_ext_gift_wrap')).toEqual(['20260101000000_papers', '20260102000000_colour']);
    expect(await tableExists('gift_wrap_papers')).toBe(true);
    expect((await pool.query("SELECT count(*)::int AS n FROM _prisma_migrations WHERE migration_name LIKE '%papers%'")).rows).toEqual([
      { n: 0 },
    ]);
    expect(await extensionRevisionMismatch(pool, extensions)).toBeUndefined();

    expect(await migrateExtensions(pool, extensions)).toEqual(new Map([['gift-wrap', []]]));
  });

  it('names the extension and both revisions when the package moved past the database', async () => {
    const ext = path.join(dir, 'loyalty');
    await addMigration(ext, '20260101000000_points', 'CREATE TABLE loyalty_points (customer_id bigint PRIMARY KEY, points int NOT NULL);');
    await migrateExtensions(pool, [packaged('loyalty', '20260101000000_points')]);
    await addMigration(ext, '20260201000000_tiers', 'CREATE TABLE loyalty_tiers (name text PRIMARY KEY);');
    expect(await extensionRevisionMismatch(pool, [packaged('loyalty', '20260201000000_tiers')])).toBe(
      "extension loyalty: the database is at revision 20260101000000_points but the package's head is 20260201000000_tiers; run npm run db:migrate (on Kubernetes, the Shop's migration Job) or start the api first, either applies extension migrations",
    );
  });

  it('rolls a failing migration back whole, keeping the ones applied before it', async () => {
    const ext = path.join(dir, 'reviews');
    await addMigration(ext, '20260101000000_reviews', 'CREATE TABLE reviews (id bigserial PRIMARY KEY);');
    await addMigration(
      ext,
      '20260102000000_broken',
      'CREATE TABLE review_votes (id bigserial PRIMARY KEY); ALTER TABLE missing ADD COLUMN x int;',
    );
    const failure = await migrateExtensions(pool, [packaged('reviews', '20260102000000_broken')]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MigrationFailedError);
    expect((failure as MigrationFailedError).message).toBe(
      'migration 20260102000000_broken of extension reviews failed and was rolled back, nothing of it is applied: relation "missing" does not exist',
    );
    expect(await recorded('_shop_migrations_ext_reviews')).toEqual(['20260101000000_reviews']);
    expect(await tableExists('reviews')).toBe(true);
    expect(await tableExists('review_votes')).toBe(false);
  });

  it('refuses an applied migration whose file changed', async () => {
    const ext = path.join(dir, 'badges');
    await addMigration(ext, '20260101000000_badges', 'CREATE TABLE badges (id bigserial PRIMARY KEY);');
    await migrateExtensions(pool, [packaged('badges', '20260101000000_badges')]);
    await writeFile(path.join(ext, 'migrations', '20260101000000_badges', 'migration.sql'), 'CREATE TABLE badges (id bigint PRIMARY KEY);');
    await expect(migrateExtensions(pool, [packaged('badges', '20260101000000_badges')])).rejects.toThrow(
      'extension badges: migration.sql of applied migration(s) 20260101000000_badges changed since applied; restore it and add a new migration',
    );
  });
});
