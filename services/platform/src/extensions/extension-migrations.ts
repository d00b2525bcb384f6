import { createHash } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { DiscoveredExtension } from './discovery.ts';
import { ExtensionError } from './extension-error.ts';
import { readMigrationsList } from '../db/migrations/migrations-directory.ts';
import { MigrationError, MigrationFailedError } from '../db/migrations/errors.ts';

/** The private version table of an extension's chain: `_shop_migrations_ext_<id>`, dashes as underscores. */
function extensionVersionTable(id: string): string {
  return `_shop_migrations_ext_${id.replaceAll('-', '_')}`;
}

interface Migration {
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

async function packagedMigrations(extension: DiscoveredExtension & { manifest: { migrations: { dir: string } } }): Promise<Migration[]> {
  const { migrationDirectories } = await readMigrationsList(path.join(extension.dir, extension.manifest.migrations.dir));
  return migrationDirectories.map(({ path: name, migrationFile }) => {
    if (migrationFile.content.tag === 'error') throw new ExtensionError(extension.id, `migration ${name}: ${migrationFile.content.value}`);
    const sql = migrationFile.content.value;
    return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
  });
}

const hasMigrations = (
  extension: DiscoveredExtension,
): extension is DiscoveredExtension & { manifest: { migrations: { dir: string; head: string } } } =>
  extension.manifest.migrations !== undefined;

/**
 * Applies each extension's pending migrations, oldest first, each in its own transaction with its row in the
 * extension's version table. Concurrent api processes take turns on an advisory lock per extension.
 * Returns the names applied per extension id.
 *
 * @throws MigrationError before the core migrations are applied.
 * @throws ExtensionError when an applied migration's file changed or the database has one the package lacks.
 * @throws MigrationFailedError when a migration's SQL fails (that migration is rolled back whole).
 */
export async function migrateExtensions(pool: pg.Pool, extensions: readonly DiscoveredExtension[]): Promise<Map<string, string[]>> {
  const applied = new Map<string, string[]>();
  const owningTables = extensions.filter(hasMigrations);
  if (owningTables.length === 0) return applied;
  // Before them the schema must stay empty: `prisma migrate deploy` refuses a database that has tables and no history.
  const core = await pool.query<{ table: string | null }>("SELECT to_regclass('_prisma_migrations')::text AS table");
  if (core.rows[0]?.table == null)
    throw new MigrationError("the core migrations are not applied yet (npm run db:migrate); the extensions' migrations run after them");
  for (const extension of owningTables)
    applied.set(extension.id, await migrateExtension(pool, extension, await packagedMigrations(extension)));
  return applied;
}

async function migrateExtension(pool: pg.Pool, extension: DiscoveredExtension, migrations: readonly Migration[]): Promise<string[]> {
  const table = pg.escapeIdentifier(extensionVersionTable(extension.id));
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [table]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${table} (name varchar(255) PRIMARY KEY, checksum char(64) NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM ${table}`);
    const done = new Map(rows.map((row) => [row.name, row.checksum]));
    const unknown = [...done.keys()].filter((name) => !migrations.some((migration) => migration.name === name));
    if (unknown.length > 0)
      throw new ExtensionError(
        extension.id,
        `the database has migration(s) ${unknown.join(', ')} that version ${extension.version} does not ship`,
      );
    const edited = migrations
      .filter((migration) => done.has(migration.name) && done.get(migration.name) !== migration.checksum)
      .map((migration) => migration.name);
    if (edited.length > 0)
      throw new ExtensionError(
        extension.id,
        `migration.sql of applied migration(s) ${edited.join(', ')} changed since applied; restore it and add a new migration`,
      );

    const applied: string[] = [];
    for (const migration of migrations.filter((candidate) => !done.has(candidate.name))) {
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${table} (name, checksum) VALUES ($1, $2)`, [migration.name, migration.checksum]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new MigrationFailedError(`${migration.name} of extension ${extension.id}`, (error as Error).message, applied);
      }
      applied.push(migration.name);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [table]).catch(() => undefined);
    client.release();
  }
}

/** The newest migration recorded in the extension's version table, or undefined before its first. */
async function extensionRevision(pool: pg.Pool, id: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ table: string | null }>('SELECT to_regclass($1)::text AS table', [extensionVersionTable(id)]);
  if (rows[0]?.table == null) return undefined;
  const latest = await pool.query<{ name: string }>(
    `SELECT name FROM ${pg.escapeIdentifier(extensionVersionTable(id))} ORDER BY name DESC LIMIT 1`,
  );
  return latest.rows[0]?.name;
}

/**
 * The first extension whose database revision is not its packaged head, as one line naming it and both
 * revisions; undefined when all match. The worker, consumer and schedule runner never migrate: they refuse to start.
 */
export async function extensionRevisionMismatch(pool: pg.Pool, extensions: readonly DiscoveredExtension[]): Promise<string | undefined> {
  for (const extension of extensions.filter(hasMigrations)) {
    const revision = await extensionRevision(pool, extension.id);
    if (revision !== extension.manifest.migrations.head) {
      return `extension ${extension.id}: the database is at revision ${revision ?? 'none'} but the package's head is ${extension.manifest.migrations.head}; run npm run db:migrate (on Kubernetes, the Shop's migration Job) or start the api first, either applies extension migrations`;
    }
  }
  return undefined;
}
