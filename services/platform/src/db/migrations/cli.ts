// Behind `npm run db:migrate` (deploy) and `npm run db:migration:create -- <name>` (create).
import path from 'node:path';
import { applyMigrations, createMigration } from './index.ts';

const usage = `usage: cli.ts deploy          apply pending prisma/migrations to the database at $DATABASE_URL
       cli.ts create <name>   write prisma/migrations/<timestamp>_<name>/migration.sql for prisma/schema.prisma`;

// sysexits(3)
const exitUsage = 64;
const exitConfig = 78;

async function main([command, ...args]: string[]): Promise<number> {
  if (command === 'deploy' && args.length === 0) return deploy();
  if (command === 'create' && args[0] !== undefined && args.length === 1) return create(args[0]);
  console.error(usage);
  return exitUsage;
}

async function deploy(): Promise<number> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set: set it to the URL of the PostgreSQL database to migrate');
    return exitConfig;
  }
  const applied = await applyMigrations(url, { onApplied: (name) => console.log(`applied ${name}`) });
  console.log(applied.length === 0 ? 'database is up to date, no migration to apply' : `${applied.length} migration(s) applied`);
  return 0;
}

async function create(name: string): Promise<number> {
  const migration = await createMigration(name);
  console.log(`created ${path.relative(process.cwd(), migration.path)}`);
  return 0;
}

/** Schema engine errors span several lines and end in a Rust span trace, which says nothing to the user. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\n\s*0: [\s\S]*$/, '').replace(/\s*\n\s*/g, ' ').trim();
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`error: ${oneLine(error)}`);
  return 1;
});
