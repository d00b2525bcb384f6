// The api applies the extensions' migrations at boot; tests that run a worker or consumer without an api first do it here.
import pg from 'pg';
import { createLogger, discoverExtensions, migrateExtensions } from '@shop/platform';
import { REPO_ROOT } from '../../services/platform/src/repository.ts';

/** Applies the migrations of the repository's extensions (extensions/) to the database at `url`. */
export async function migrateRepositoryExtensions(url: string): Promise<void> {
  const extensions = await discoverExtensions({ root: REPO_ROOT, logger: createLogger({ level: 'ERROR', service: 'test' }) });
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrateExtensions(pool, extensions);
  } finally {
    await pool.end();
  }
}
