import { createHash } from 'node:crypto';
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../../test/infra/isolation.ts';
import {
  applyMigrations,
  createMigration,
  defaultMigrationsDir,
  defaultSchemaDir,
  MigrationDriftError,
  MigrationError,
  MigrationFailedError,
  pgliteAdapter,
} from '../../../src/db/migrations/index.ts';

interface Database {
  readonly target: SqlMigrationAwareDriverAdapterFactory | string;
  /** Runs a query whose single column is JSON text and returns it parsed, so both drivers return the same values. */
  json(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

const openDatabase = {
  pglite: async (): Promise<Database> => {
    const db = new PGlite();
    return {
      target: pgliteAdapter(db),
      json: async (sql) => parseOnlyValue((await db.query<[string]>(sql, [], { rowMode: 'array' })).rows),
      close: () => db.close(),
    };
  },
  postgres: async (): Promise<Database> => {
    const database = await createTestDatabase('migrations');
    const client = new pg.Client(database.url);
    await client.connect();
    return {
      target: database.url,
      json: async (sql) => parseOnlyValue((await client.query<[string]>({ text: sql, rowMode: 'array' })).rows),
      close: async () => {
        await client.end();
        await database.drop();
      },
    };
  },
};

function parseOnlyValue([row]: [string][]): unknown {
  if (row === undefined) throw new Error('the query returned no row');
  return JSON.parse(row[0]);
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function open(kind: keyof typeof openDatabase): Promise<Database> {
  const database = await openDatabase[kind]();
  cleanups.push(() => database.close());
  return database;
}

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'migrations-test-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

/** A copy of the repository's migrations that a test may change. */
async function copyOfMigrations(): Promise<string> {
  const directory = path.join(await temporaryDirectory(), 'migrations');
  await cp(defaultMigrationsDir, directory, { recursive: true });
  return directory;
}

async function addMigration(migrationsDir: string, name: string, sql: string): Promise<string> {
  await mkdir(path.join(migrationsDir, name));
  const file = path.join(migrationsDir, name, 'migration.sql');
  await writeFile(file, sql);
  return file;
}

async function migrationNames(migrationsDir: string): Promise<string[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The public schema as information_schema and pg_indexes describe it, minus names that embed OIDs. */
function schemaDump(database: Database): Promise<unknown> {
  return database.json(`
    SELECT json_build_object(
      'columns', (SELECT json_agg(c ORDER BY c.table_name, c.ordinal_position) FROM (
        SELECT table_name, column_name, ordinal_position, data_type, udt_name, is_nullable, column_default,
               character_maximum_length, numeric_precision, numeric_scale, datetime_precision
        FROM information_schema.columns WHERE table_schema = 'public') c),
      'constraints', (SELECT json_agg(k ORDER BY k.table_name, k.constraint_name) FROM (
        SELECT tc.table_name, tc.constraint_name, tc.constraint_type,
               string_agg(kcu.column_name, ',' ORDER BY kcu.ordinal_position) AS columns
        FROM information_schema.table_constraints tc
        LEFT JOIN information_schema.key_column_usage kcu USING (constraint_schema, constraint_name, table_name)
        WHERE tc.table_schema = 'public' AND NOT (tc.constraint_type = 'CHECK' AND tc.constraint_name LIKE '%_not_null')
        GROUP BY tc.table_name, tc.constraint_name, tc.constraint_type) k),
      'foreignKeys', (SELECT json_agg(r ORDER BY r.constraint_name) FROM (
        SELECT constraint_name, unique_constraint_name, match_option, update_rule, delete_rule
        FROM information_schema.referential_constraints WHERE constraint_schema = 'public') r),
      'indexes', (SELECT json_agg(i ORDER BY i.tablename, i.indexname) FROM (
        SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public') i)
    )::text`);
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished: boolean;
  rolled_back: boolean;
  applied_steps_count: number;
  logs: string | null;
}

async function migrationRows(database: Database): Promise<MigrationRow[]> {
  const rows = await database.json(`
    SELECT coalesce(json_agg(m ORDER BY m.started_at), '[]')::text FROM (
      SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back,
             applied_steps_count, logs, started_at
      FROM _prisma_migrations) m`);
  return (rows as (MigrationRow & { started_at: string })[]).map(({ started_at: _, ...row }) => row);
}

const sha256 = async (file: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe.each(['pglite', 'postgres'] as const)('applyMigrations on %s', (kind) => {
  it('applies every migration once, recording _prisma_migrations as prisma migrate deploy does', async () => {
    const database = await open(kind);
    const names = await migrationNames(defaultMigrationsDir);
    const announced: string[] = [];

    expect(await applyMigrations(database.target, { onApplied: (name) => announced.push(name) })).toEqual(names);
    expect(announced).toEqual(names);
    expect(await migrationRows(database)).toEqual(
      await Promise.all(
        names.map(async (name) => ({
          migration_name: name,
          checksum: await sha256(path.join(defaultMigrationsDir, name, 'migration.sql')),
          finished: true,
          rolled_back: false,
          applied_steps_count: 1,
          logs: null,
        })),
      ),
    );

    expect(await applyMigrations(database.target)).toEqual([]);
    expect(await migrationRows(database)).toHaveLength(names.length);
  });

  it('rolls a failing migration back whole, names it, and applies it once corrected', async () => {
    const database = await open(kind);
    const migrationsDir = await copyOfMigrations();
    await applyMigrations(database.target, { migrationsDir });
    const schemaBefore = await schemaDump(database);

    const broken = '29990101000000_broken';
    const brokenFile = await addMigration(
      migrationsDir,
      broken,
      // The ";" inside the literal would break a script split on semicolons.
      `CREATE TABLE "partial" ("note" TEXT NOT NULL);
INSERT INTO "partial" ("note") VALUES ('a;b');
CREATE TABLE "oops" ("id" INTEGR);
`,
    );
    const failure = applyMigrations(database.target, { migrationsDir });
    await expect(failure).rejects.toThrow(MigrationFailedError);
    await expect(failure).rejects.toMatchObject({
      migrationName: broken,
      message: expect.stringMatching(/29990101000000_broken.*type "integr" does not exist \(SQLSTATE 42704\)/),
    });

    expect(await schemaDump(database)).toEqual(schemaBefore);
    expect((await migrationRows(database)).filter((row) => row.migration_name === broken)).toMatchObject([
      { finished: false, rolled_back: true, applied_steps_count: 0 },
    ]);

    await writeFile(brokenFile, (await readFile(brokenFile, 'utf8')).replace('INTEGR', 'INTEGER'));
    expect(await applyMigrations(database.target, { migrationsDir })).toEqual([broken]);
    expect(await database.json(`SELECT json_agg("note")::text FROM "partial"`)).toEqual(['a;b']);
  });

  it('refuses to apply anything when an applied migration was edited', async () => {
    const database = await open(kind);
    const migrationsDir = await copyOfMigrations();
    await applyMigrations(database.target, { migrationsDir });
    const [first] = await migrationNames(migrationsDir);
    if (first === undefined) throw new Error('the repository has no migrations');
    await appendFile(path.join(migrationsDir, first, 'migration.sql'), '\n-- edited after deploy\n');
    await addMigration(migrationsDir, '29990101000000_pending', 'CREATE TABLE "pending" ("id" INTEGER);');

    const drift = applyMigrations(database.target, { migrationsDir });
    await expect(drift).rejects.toThrow(MigrationDriftError);
    await expect(drift).rejects.toMatchObject({ editedMigrationNames: [first] });
    expect(await database.json(`SELECT to_json(to_regclass('pending') IS NOT NULL)::text`)).toBe(false);
  });
});

it('produces identical schemas on PGlite and PostgreSQL', async () => {
  const [pglite, postgres] = await Promise.all([open('pglite'), open('postgres')]);
  await applyMigrations(pglite.target);
  await applyMigrations(postgres.target);

  const dump = await schemaDump(pglite);
  expect(dump).toEqual(await schemaDump(postgres));
  expect(dump).toMatchObject({
    columns: expect.arrayContaining([
      expect.objectContaining({ table_name: 'settings', column_name: 'key', udt_name: 'varchar', character_maximum_length: 200 }),
      expect.objectContaining({ table_name: 'settings', column_name: 'value', udt_name: 'jsonb' }),
    ]),
    constraints: expect.arrayContaining([
      { table_name: 'settings', constraint_name: 'settings_pkey', constraint_type: 'PRIMARY KEY', columns: 'key' },
    ]),
  });
});

describe('createMigration', () => {
  it('starts a migrations folder: the first migration and the lockfile', async () => {
    const migrationsDir = path.join(await temporaryDirectory(), 'migrations');
    const created = await createMigration('init', { migrationsDir });

    expect(created.name).toMatch(/^\d{14}_init$/);
    expect(created.sql).toContain('CREATE TABLE "settings"');
    expect(await readFile(path.join(migrationsDir, 'migration_lock.toml'), 'utf8')).toContain('provider = "postgresql"');
  });

  it('writes a migration that creates a model added to the schema, and refuses when nothing changed', async () => {
    const migrationsDir = await copyOfMigrations();
    const schemaDir = path.join(await temporaryDirectory(), 'schema');
    await cp(defaultSchemaDir, schemaDir, { recursive: true });
    await writeFile(
      path.join(schemaDir, 'migration-probes.prisma'),
      `model MigrationProbe {
  id     BigInt @id @default(autoincrement())
  action String @db.VarChar(64)

  @@index([action])
  @@map("migration_probes")
}
`,
    );

    const created = await createMigration('Add migration-probes', { migrationsDir, schemaDir });
    expect(created.name).toMatch(/^\d{14}_add_migration_probes$/);
    expect(created.path).toBe(path.join(migrationsDir, created.name, 'migration.sql'));
    expect(await readFile(created.path, 'utf8')).toBe(created.sql);
    expect(created.sql).toContain('CREATE TABLE "migration_probes"');
    expect(created.sql).toContain('CREATE INDEX "migration_probes_action_idx"');
    expect(created.sql).not.toContain('"settings"');

    const database = await open('pglite');
    expect(await applyMigrations(database.target, { migrationsDir })).toEqual(await migrationNames(migrationsDir));
    expect(await database.json(`SELECT to_json(to_regclass('migration_probes') IS NOT NULL)::text`)).toBe(true);

    const names = await migrationNames(migrationsDir);
    await expect(createMigration('again', { migrationsDir, schemaDir })).rejects.toThrow(/no changes/);
    await expect(createMigration('again', { migrationsDir, schemaDir })).rejects.toThrow(MigrationError);
    expect(await migrationNames(migrationsDir)).toEqual(names);
  });

  it('refuses an invalid name without writing anything', async () => {
    const migrationsDir = await copyOfMigrations();
    const names = await migrationNames(migrationsDir);
    for (const name of ['', '../escape', 'drop;table', '1st', 'a__b']) {
      await expect(createMigration(name, { migrationsDir })).rejects.toThrow(/invalid migration name/);
    }
    expect(await migrationNames(migrationsDir)).toEqual(names);
  });
});
