// Real PostgreSQL, Redis, Kafka and Temporal servers on 127.0.0.1, each on a free port with a fresh temp data dir
// unless a `ServerPlacement` names the port and a kept dir (the dev stack).
import { existsSync } from 'node:fs';
import { chown } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { isPostgresInstalled, isRedisInstalled, postgresBinDir, redisServerBin } from './layout.ts';
import { requireProvisioned, startServer, type ServerHandle, type ServerPlacement } from './managed-server.ts';
import { freePort, launch, run, type RunOptions } from './proc.ts';

export type { ServerHandle, ServerName, ServerPlacement } from './managed-server.ts';
export { startKafka } from './kafka.ts';
export { startTemporal } from './temporal.ts';

/** initdb and postgres refuse to run as root, so as root they run as the `postgres` OS user. */
async function postgresUser(): Promise<RunOptions> {
  if (process.getuid?.() !== 0) return {};
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

export async function startPostgres(placement: ServerPlacement = {}): Promise<ServerHandle> {
  requireProvisioned(`PostgreSQL (${postgresBinDir})`, isPostgresInstalled());
  return startServer(
    'postgres',
    async (baseDir) => {
      const port = placement.port ?? (await freePort());
      const dataDir = join(baseDir, 'data');
      const user = await postgresUser();
      if (user.uid !== undefined && user.gid !== undefined) await chown(baseDir, user.uid, user.gid);
      if (!existsSync(join(dataDir, 'PG_VERSION'))) {
        await run(
          join(postgresBinDir, 'initdb'),
          ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C'],
          user,
        );
      }
      const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
      const settings = {
        listen_addresses: '127.0.0.1',
        fsync: 'off',
        synchronous_commit: 'off',
        full_page_writes: 'off',
        max_connections: '200',
      };
      const args = ['-D', dataDir, '-p', String(port), '-k', dataDir];
      for (const [key, value] of Object.entries(settings)) args.push('-c', `${key}=${value}`);
      return {
        name: 'postgres',
        port,
        url,
        baseDir,
        launch: (logFile) => launch(join(postgresBinDir, 'postgres'), args, { ...user, logFile }),
        probe: async () => {
          const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
          try {
            await client.connect();
            await client.query('SELECT 1');
          } finally {
            await client.end().catch(() => undefined);
          }
        },
        readyTimeoutMs: 30_000,
        // SIGTERM is postgres' "smart" shutdown, which waits for every client to disconnect.
        stopSignal: 'SIGINT',
        stopTimeoutMs: 15_000,
      };
    },
    placement.dir,
  );
}

export async function startRedis(placement: ServerPlacement = {}): Promise<ServerHandle> {
  requireProvisioned(`Redis (${redisServerBin})`, isRedisInstalled());
  return startServer(
    'redis',
    async (baseDir) => {
      const port = placement.port ?? (await freePort());
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--daemonize', 'no', '--dir', baseDir];
      // In a kept dir Redis keeps its default snapshots (dump.rdb, also written at shutdown).
      if (placement.dir === undefined) args.push('--save', '', '--appendonly', 'no');
      return {
        name: 'redis',
        port,
        url: `redis://127.0.0.1:${port}`,
        baseDir,
        launch: (logFile) => launch(redisServerBin, args, { logFile }),
        probe: async () => {
          const client = new Redis(port, '127.0.0.1', {
            lazyConnect: true,
            connectTimeout: 1_000,
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            retryStrategy: () => null,
          });
          client.on('error', () => undefined); // failures surface through the awaited calls
          try {
            await client.connect();
            const reply = await client.ping();
            if (reply !== 'PONG') throw new Error(`PING answered ${reply}`);
          } finally {
            client.disconnect();
          }
        },
        readyTimeoutMs: 15_000,
        stopSignal: 'SIGTERM',
        stopTimeoutMs: 10_000,
      };
    },
    placement.dir,
  );
}
