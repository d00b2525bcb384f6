import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Registry } from 'prom-client';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '@shop/runtime';
import type { Probe } from '../health/probe.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.ts';
import { registerPoolMetrics } from './pool-metrics.ts';

export { PrismaClient };

export interface Database extends Probe {
  readonly prisma: PrismaClient;
  readonly pool: pg.Pool;
  /** The URL the pool connects to (the embedded server's loopback URL when embedded). */
  readonly url: string;
  close(): Promise<void>;
}

export const EMBEDDED_DATA_DIR = path.join('.data', 'pglite');

/**
 * Opens the pool and the Prisma client over it. With no DATABASE_URL (never in production)
 * an embedded PGlite server is started first and the same driver connects to it.
 */
export async function openDatabase(config: Config, logger: Logger, registry: Registry): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  if (config.databaseUrl === undefined) {
    embedded = await startEmbeddedPostgres(EMBEDDED_DATA_DIR);
    logger.warn({ dataDir: EMBEDDED_DATA_DIR }, 'DATABASE_URL is not set: using the embedded PGlite database');
    logger.info({ applied: embedded.applied }, `embedded database migrated (${embedded.applied.length} applied)`);
  }
  const url = embedded?.url ?? (config.databaseUrl as string);
  const pool = new pg.Pool({ connectionString: url, max: config.databasePoolMax, connectionTimeoutMillis: 5_000 });
  // An idle client whose server went away emits here; without a listener the process would crash.
  pool.on('error', (error) => logger.warn({ err: error }, 'database connection lost'));
  // A checked-out client has no pool listener: its server going away between two queries (a relay
  // pass publishing, a transaction waiting) would crash the process. The query in progress or the
  // next one fails with the error, and the holder releases the client with it.
  pool.on('connect', (client) => client.on('error', () => {}));
  registerPoolMetrics(registry, pool, config.databasePoolMax);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });

  return {
    prisma,
    pool,
    url,
    mode: embedded ? 'embedded' : 'external',
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await prisma.$disconnect();
      await pool.end();
      await embedded?.close();
    },
  };
}
