import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { ServerHandle } from '../test/infra/servers.ts';

/** The baseline every HTTP benchmark compares with: a bare Fastify route in its own process. */
export async function startBare(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'bare-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const match = /Server listening at (\S+)/.exec(chunk.toString());
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/**
 * pg_stat_statements, for where the database's time goes: a preloaded library, so PostgreSQL restarts
 * once before anything connects. Its own cost is small and the same for every target.
 */
export async function enableStatementStats(postgres: ServerHandle): Promise<void> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  await client.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  await client.end();
  await postgres.stop();
  await postgres.start();
  const again = new pg.Client({ connectionString: postgres.url });
  await again.connect();
  await again.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await again.end();
}
