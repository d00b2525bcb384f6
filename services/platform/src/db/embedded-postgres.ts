import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** A postgresql:// URL on a loopback port: clients use the same driver as with a real server. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to WASM) served over the PostgreSQL wire protocol on 127.0.0.1,
 * so the embedded default runs exactly the code path of a real server.
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
  await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  const [, port] = server.getServerConn().split(':');
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
