import { fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { EmbeddedServerMessage } from './embedded-postgres-server.ts';
import { withTimeout } from '../time/with-timeout.ts';

export interface EmbeddedPostgres {
  /** A postgresql:// URL on a loopback port: clients use the same driver as with a real server. */
  readonly url: string;
  /** Migrations applied at this start (none when the data was already up to date). */
  readonly applied: readonly string[];
  close(): Promise<void>;
}

const SERVER_ENTRY = path.join(import.meta.dirname, 'embedded-postgres-server.ts');
const START_TIMEOUT_MS = 120_000;

/**
 * Starts PGlite (PostgreSQL compiled to WASM) in a child process serving the PostgreSQL wire
 * protocol on 127.0.0.1, migrated, so the embedded default runs exactly the code path of a real server.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const child = fork(SERVER_ENTRY, [path.resolve(dataDir)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const answered = once(child, 'message') as Promise<[EmbeddedServerMessage]>;
  const failed = exited.then(([code]) => {
    throw new Error(`the embedded database exited with code ${code} before it was ready (data in ${dataDir})`);
  });
  let message: EmbeddedServerMessage;
  try {
    [message] = await withTimeout(Promise.race([answered, failed]), START_TIMEOUT_MS, 'the embedded database did not start in time');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (message.type === 'failed') {
    await exited;
    throw new Error(`the embedded database did not start: ${message.message}`);
  }
  return {
    url: message.url,
    applied: message.applied,
    async close() {
      if (child.exitCode !== null) return;
      child.disconnect();
      await exited;
    },
  };
}
