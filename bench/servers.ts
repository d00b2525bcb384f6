import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { ServerHandle } from '../test/infra/servers.ts';

export interface ListeningServer {
  readonly url: string;
  readonly pid: number | undefined;
  stop(): void;
}

/** A Node script in its own process, once it logs Fastify's "Server listening at <url>". */
export function spawnListening(script: string, args: readonly string[] = [], env: Record<string, string> = {}): Promise<ListeningServer> {
  const child = spawn(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const match = /Server listening at (\S+)/.exec(chunk.toString());
      if (match?.[1]) resolve({ url: match[1], pid: child.pid, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`${path.basename(script)} ${args.join(' ')} exited with ${code}`)));
  });
}

/** The baseline every HTTP benchmark compares with: a bare Fastify route in its own process. */
export function startBare(): Promise<ListeningServer> {
  return spawnListening(path.join(import.meta.dirname, 'bare-server.ts'));
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

/**
 * Starts servers together, adding each that started to `servers` (which the caller disposes, in its
 * `finally`, even when another failed), then throws the first failure; returns them in `starts`' order.
 */
export async function startServers(servers: ServerHandle[], starts: readonly Promise<ServerHandle>[]): Promise<ServerHandle[]> {
  const settled = await Promise.allSettled(starts);
  for (const server of settled) if (server.status === 'fulfilled') servers.push(server.value);
  const failed = settled.find((server) => server.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((server) => (server as PromiseFulfilledResult<ServerHandle>).value);
}
