export { applyMigrations, type ApplyMigrationsOptions } from './apply-migrations.ts';
export { createMigration, pendingSchemaChanges, type CreateMigrationOptions, type CreatedMigration } from './create-migration.ts';
export { pgliteAdapter, postgresAdapter } from './database-adapters.ts';
export { MigrationDriftError, MigrationError, MigrationFailedError } from './errors.ts';
export { defaultMigrationsDir, defaultSchemaDir } from './migrations-directory.ts';
export { compareVersions, DowngradeRefusedError, imageVersion, recordedSchemaVersion, withSchemaVersion } from './schema-version.ts';
