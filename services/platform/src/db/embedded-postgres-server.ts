/**
 * Child-process entry of the embedded database: PGlite served over the PostgreSQL wire protocol on
 * a loopback port, migrated over that same protocol before it reports ready. It runs apart from the
 * service so PGlite's synchronous WASM execution never blocks the service's event loop, and neither
 * PGlite's memory nor the schema engine's is the service's. It stops when its parent disconnects,
 * so it cannot outlive the process that started it.
 */
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { applyMigrations } from './migrations/apply-migrations.ts';
import { servePglite } from './pglite-wire-server.ts';
import { lockDataDir } from './data-dir-lock.ts';

export type EmbeddedServerMessage =
  | { readonly type: 'ready'; readonly url: string; readonly applied: readonly string[] }
  | { readonly type: 'failed'; readonly message: string };

const [dataDir] = process.argv.slice(2);
if (dataDir === undefined || process.send === undefined) {
  process.stderr.write('usage: started by startEmbeddedPostgres() with an IPC channel: <dataDir>\n');
  process.exit(64);
}

const report = (message: EmbeddedServerMessage) =>
  new Promise<void>((resolve) => (process.send as NonNullable<typeof process.send>)(message, () => resolve()));

let release: (() => Promise<void>) | undefined;
try {
  await mkdir(dataDir, { recursive: true });
  release = await lockDataDir(dataDir);
  const db = await PGlite.create(dataDir);
  const server = await servePglite(db);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await db.close();
    await release?.();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => {});

  const url = `postgresql://postgres@127.0.0.1:${server.port}/postgres?sslmode=disable`;
  await report({ type: 'ready', url, applied: await applyMigrations(url) });
} catch (error) {
  await report({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  await release?.();
  process.exit(1);
}
