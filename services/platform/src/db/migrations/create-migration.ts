import { PGlite } from '@electric-sql/pglite';
import type { SchemaContainer } from '@prisma/schema-engine-wasm/schema_engine_bg';
import { applyMigrations } from './apply-migrations.ts';
import { pgliteAdapter } from './database-adapters.ts';
import { MigrationError } from './errors.ts';
import { defaultMigrationsDir, defaultSchemaDir, readSchemaFiles, writeMigration } from './migrations-directory.ts';
import { noSchemaFilter, withSchemaEngine } from './schema-engine.ts';

export interface CreateMigrationOptions {
  /** Defaults to the repository's prisma/migrations. */
  migrationsDir?: string;
  /** The folder of the multi-file schema; defaults to the repository's prisma/schema. */
  schemaDir?: string;
}

export interface CreatedMigration {
  /** The directory name, `<UTC YYYYMMDDHHMMSS>_<snake_name>`, which is also the name `_prisma_migrations` records. */
  name: string;
  /** Absolute path of the migration.sql written. */
  path: string;
  sql: string;
}

/**
 * Writes the migration that takes a database from the state the existing migrations produce to the Prisma schema.
 * Refuses with a {@link MigrationError}, writing nothing, when the name is invalid or the schema has no changes.
 */
export async function createMigration(name: string, options: CreateMigrationOptions = {}): Promise<CreatedMigration> {
  const snakeName = toSnakeName(name);
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir;
  const schemaDir = options.schemaDir ?? defaultSchemaDir;
  const sql = await pendingSchemaChanges({ migrationsDir, schemaDir });
  if (sql === undefined) {
    throw new MigrationError(`no changes: ${schemaDir} matches what the migrations in ${migrationsDir} create; nothing written`);
  }
  const directoryName = `${utcTimestamp(new Date())}_${snakeName}`;
  return { name: directoryName, path: await writeMigration(migrationsDir, directoryName, sql), sql };
}

/**
 * The SQL a new migration would need for the database to match the Prisma schema, or undefined
 * when the existing migrations already produce it.
 */
export async function pendingSchemaChanges(options: CreateMigrationOptions = {}): Promise<string | undefined> {
  const schemaDir = options.schemaDir ?? defaultSchemaDir;
  return diffMigrationsAgainstSchema(options.migrationsDir ?? defaultMigrationsDir, schemaDir, await readSchemaFiles(schemaDir));
}

const maxNameLength = 200;

function toSnakeName(name: string): string {
  const snakeName = name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (!/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/.test(snakeName) || snakeName.length > maxNameLength) {
    throw new MigrationError(
      `invalid migration name ${JSON.stringify(name)}: use letters, digits and single "_", "-" or spaces between ` +
        `words, starting with a letter, at most ${maxNameLength} characters (e.g. add_orders)`,
    );
  }
  return snakeName;
}

/**
 * Replays the migrations into a throwaway in-memory PGlite and diffs that database against the schema. The SQL files
 * are what defines a migrated database (hand edits included, which no saved copy of an older schema would know), and
 * PGlite runs them in-process, so this needs no server and no network. Returns undefined when nothing changed.
 */
async function diffMigrationsAgainstSchema(
  migrationsDir: string,
  schemaDir: string,
  files: SchemaContainer[],
): Promise<string | undefined> {
  const db = new PGlite();
  try {
    await applyMigrations(pgliteAdapter(db), { migrationsDir }).catch((error: unknown) => {
      throw new MigrationError(`the existing migrations do not replay: ${(error as Error).message}`, { cause: error });
    });
    return await withSchemaEngine(pgliteAdapter(db), async ({ engine }) => {
      const { exitCode, stdout } = await engine.diff({
        // With a driver adapter, "schemaDatasource" is the database the adapter connects to.
        from: { tag: 'schemaDatasource', files, configDir: schemaDir },
        to: { tag: 'schemaDatamodel', files },
        script: true,
        exitCode: true,
        filters: noSchemaFilter,
      });
      const nonEmptyDiff = 2;
      return exitCode === nonEmptyDiff ? (stdout ?? '') : undefined;
    });
  } finally {
    await db.close();
  }
}

function utcTimestamp(date: Date): string {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}
