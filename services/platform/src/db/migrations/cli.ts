// Behind `npm run db:migrate` (deploy) and `npm run db:migration:create -- <name>` (create).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createLogger, EXIT_DOWNGRADE_REFUSED, formatMigrationSummary, type MigrationSummary } from '@shop/runtime';
import { discoverExtensions } from '../../extensions/discovery.ts';
import { migrateExtensions } from '../../extensions/extension-migrations.ts';
import { REPO_ROOT } from '../../repository.ts';
import { applyMigrations, createMigration } from './index.ts';
import { DowngradeRefusedError, imageVersion, withSchemaVersion } from './schema-version.ts';

const usage = `usage: cli.ts deploy [--allow-downgrade] [--summary-file=PATH]
                apply pending prisma/migrations, then the extensions' migrations (and those of
                $SHOP_DEV_EXTENSIONS outside production), to the database at $DATABASE_URL and
                record this version (package.json) as the schema's; refuses (exit ${EXIT_DOWNGRADE_REFUSED}) when a newer version
                migrated it, unless --allow-downgrade; writes the outcome to PATH as JSON (the
                operator's Job: /dev/termination-log)
       cli.ts create <name>   write prisma/migrations/<timestamp>_<name>/migration.sql for prisma/schema/`;

// sysexits(3)
const exitUsage = 64;
const exitConfig = 78;

async function main(argv: string[]): Promise<number> {
  const parsed = (() => {
    try {
      return parseArgs({
        args: argv,
        allowPositionals: true,
        options: { 'allow-downgrade': { type: 'boolean' }, 'summary-file': { type: 'string' } },
      });
    } catch {
      return undefined;
    }
  })();
  const [command, ...args] = parsed?.positionals ?? [];
  const options = parsed?.values ?? {};
  if (command === 'deploy' && args.length === 0) return deploy(options['allow-downgrade'] ?? false, options['summary-file']);
  const noOptions = options['allow-downgrade'] === undefined && options['summary-file'] === undefined;
  if (command === 'create' && args[0] !== undefined && args.length === 1 && noOptions) return create(args[0]);
  console.error(usage);
  return exitUsage;
}

async function deploy(allowDowngrade: boolean, summaryFile: string | undefined): Promise<number> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set: set it to the URL of the PostgreSQL database to migrate');
    return exitConfig;
  }
  const devDir = process.env.SHOP_DEV_EXTENSIONS || undefined;
  if (devDir !== undefined && process.env.NODE_ENV === 'production') {
    console.error('SHOP_DEV_EXTENSIONS is development-only; unset it in production');
    return exitConfig;
  }
  const version = await imageVersion();
  const writeSummary = async (summary: MigrationSummary) => {
    if (summaryFile !== undefined) await writeFile(summaryFile, formatMigrationSummary(summary));
  };
  try {
    const schemaVersion = await withSchemaVersion(
      url,
      version,
      async () => {
        const applied = await applyMigrations(url, { onApplied: (name) => console.log(`applied ${name}`) });
        console.log(applied.length === 0 ? 'database is up to date, no migration to apply' : `${applied.length} migration(s) applied`);
        await deployExtensions(url, devDir);
      },
      { allowDowngrade },
    );
    console.log(
      schemaVersion === version
        ? `schema version ${version} recorded`
        : `schema version stays ${schemaVersion}, newer than this image's ${version} (--allow-downgrade)`,
    );
    await writeSummary({ schemaVersion, imageVersion: version, downgradeRefused: false });
    return 0;
  } catch (error) {
    if (!(error instanceof DowngradeRefusedError)) throw error;
    console.error(`error: ${error.message}`);
    await writeSummary({ schemaVersion: error.schemaVersion, imageVersion: version, downgradeRefused: true });
    return EXIT_DOWNGRADE_REFUSED;
  }
}

/** After the core's, so that the worker and consumer, which refuse an extension behind its head, start on a migrated database. */
async function deployExtensions(url: string, devDir: string | undefined): Promise<void> {
  const extensions = await discoverExtensions({ root: REPO_ROOT, devDir, logger: createLogger({ level: 'INFO', service: 'migrate' }) });
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    for (const [id, applied] of await migrateExtensions(pool, extensions)) {
      console.log(`extension ${id}: ${applied.length === 0 ? 'migrations up to date' : `applied ${applied.join(', ')}`}`);
    }
  } finally {
    await pool.end();
  }
}

async function create(name: string): Promise<number> {
  const migration = await createMigration(name);
  console.log(`created ${path.relative(process.cwd(), migration.path)}`);
  return 0;
}

/** Schema engine errors span several lines and end in a Rust span trace, which says nothing to the user. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/\n\s*0: [\s\S]*$/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`error: ${oneLine(error)}`);
  return 1;
});
