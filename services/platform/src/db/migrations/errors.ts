/** A migration problem that the person running the tool has to act on; the message says which and why. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** A migration's SQL failed; its transaction was rolled back and its `_prisma_migrations` row marked rolled back. */
export class MigrationFailedError extends MigrationError {
  override name = 'MigrationFailedError';
  readonly migrationName: string;
  readonly databaseError: string;
  /** Migrations of the same run that were applied (and committed) before the failing one. */
  readonly appliedMigrationNames: readonly string[];

  constructor(migrationName: string, databaseError: string, appliedMigrationNames: readonly string[]) {
    super(`migration ${migrationName} failed and was rolled back, nothing of it is applied: ${databaseError}`);
    this.migrationName = migrationName;
    this.databaseError = databaseError;
    this.appliedMigrationNames = appliedMigrationNames;
  }
}

/** Applied migrations whose migration.sql no longer matches the checksum recorded when they were applied. */
export class MigrationDriftError extends MigrationError {
  override name = 'MigrationDriftError';
  readonly editedMigrationNames: readonly string[];

  constructor(editedMigrationNames: readonly string[]) {
    super(
      `migration.sql of already applied migration(s) ${editedMigrationNames.join(', ')} changed since it was applied ` +
        '(checksum differs from _prisma_migrations); restore the file and put the change in a new migration',
    );
    this.editedMigrationNames = editedMigrationNames;
  }
}
