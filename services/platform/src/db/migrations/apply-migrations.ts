import { isDriverAdapterError, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { DiagnoseMigrationHistoryOutput, MigrationList } from '@prisma/schema-engine-wasm/schema_engine_bg';
import { postgresAdapter } from './database-adapters.ts';
import { MigrationDriftError, MigrationError, MigrationFailedError } from './errors.ts';
import { defaultMigrationsDir, readMigrationsList } from './migrations-directory.ts';
import { noSchemaFilter, withSchemaEngine } from './schema-engine.ts';

export interface ApplyMigrationsOptions {
  /** Defaults to the repository's prisma/migrations. */
  migrationsDir?: string;
  /** Called after each migration is committed. */
  onApplied?: (migrationName: string) => void;
}

/**
 * Applies the migrations not yet applied, oldest first, each in its own transaction, recording them in
 * `_prisma_migrations` as `prisma migrate deploy` does. Returns the names applied (none when up to date).
 *
 * A PostgreSQL URL is reached through {@link postgresAdapter}; an adapter factory passed in must run
 * `executeScript` as one transaction, as `postgresAdapter` and `pgliteAdapter` do.
 *
 * @throws MigrationDriftError when an applied migration's file changed, before applying anything.
 * @throws MigrationFailedError when a migration's SQL fails: that migration is rolled back whole and marked rolled
 *   back (what `prisma migrate resolve --rolled-back` records), so a corrected file can be deployed again.
 */
export async function applyMigrations(
  adapterOrUrl: SqlMigrationAwareDriverAdapterFactory | string,
  options: ApplyMigrationsOptions = {},
): Promise<string[]> {
  const migrationsList = await readMigrationsList(options.migrationsDir ?? defaultMigrationsDir);
  const adapter = typeof adapterOrUrl === 'string' ? postgresAdapter(adapterOrUrl) : adapterOrUrl;

  return withSchemaEngine(adapter, async ({ engine, takeScriptFailure }) => {
    const diagnosis = await engine.diagnoseMigrationHistory({
      migrationsList,
      optInToShadowDatabase: false,
      filters: noSchemaFilter,
    });
    const pending = pendingMigrationNames(diagnosis);

    const applied: string[] = [];
    for (const name of pending) {
      // Applying one migration per call tells exactly which one failed.
      const { appliedMigrationNames } = await engine
        .applyMigrations({ migrationsList: upTo(migrationsList, name), filters: noSchemaFilter })
        .catch(async (error: unknown) => {
          const scriptFailure = takeScriptFailure();
          if (scriptFailure === undefined) throw error;
          await engine.markMigrationRolledBack({ migrationName: name });
          throw new MigrationFailedError(name, describeDatabaseError(scriptFailure), applied);
        });
      // Empty when a concurrent deploy applied it first (the engine serialises deploys with an advisory lock).
      for (const appliedName of appliedMigrationNames) {
        applied.push(appliedName);
        options.onApplied?.(appliedName);
      }
    }
    return applied;
  });
}

function pendingMigrationNames(diagnosis: DiagnoseMigrationHistoryOutput): string[] {
  if (diagnosis.editedMigrationNames.length > 0) throw new MigrationDriftError(diagnosis.editedMigrationNames);
  if (diagnosis.failedMigrationNames.length > 0) {
    throw new MigrationError(
      `migration(s) ${diagnosis.failedMigrationNames.join(', ')} are recorded as failed in _prisma_migrations by an ` +
        'earlier run; check what they left in the database, then mark them rolled back before deploying',
    );
  }
  const history = diagnosis.history;
  return history?.diagnostic === 'databaseIsBehind' || history?.diagnostic === 'historiesDiverge' ? history.unappliedMigrationNames : [];
}

function upTo(migrationsList: MigrationList, migrationName: string): MigrationList {
  const end = migrationsList.migrationDirectories.findIndex((directory) => directory.path === migrationName) + 1;
  return { ...migrationsList, migrationDirectories: migrationsList.migrationDirectories.slice(0, end) };
}

function describeDatabaseError(error: unknown): string {
  if (isDriverAdapterError(error) && error.cause.kind === 'postgres') {
    return `${error.cause.message} (SQLSTATE ${error.cause.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}
