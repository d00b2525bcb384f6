// The worker (which runs the schedules) and the consumer never migrate: with an extension's chain behind
// its packaged head in the database, they refuse to start with one line and exit code 78.
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../infra/isolation.ts';
import { spawnService } from '../support/service-process.ts';
import { migrateRepositoryExtensions } from '../support/extensions.ts';

const WORKER_MAIN = path.resolve(import.meta.dirname, '../../services/worker/src/main.ts');
const CONSUMER_MAIN = path.resolve(import.meta.dirname, '../../services/consumer/src/main.ts');
const HEAD = '20261127100000_create_order_note_digests';
const REFUSAL = `config error: extension order-notes: the database is at revision none but the package's head is ${HEAD}; run npm run db:migrate (on Kubernetes, the Shop's migration Job) or start the api first, either applies extension migrations`;

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('extension_revision_guard');
  await applyMigrations(database.url);
});

afterAll(async () => {
  await database?.drop();
});

/** Its exit code and what it printed besides JSON log lines. */
async function refusal(entry: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; lines: string[] }> {
  const started = spawnService(entry, { NODE_ENV: 'test', DATABASE_URL: database.url, CACHE_URL: inject('redisUrl'), ...env });
  const { code } = await started.exited();
  return {
    code,
    lines: started
      .output()
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('{')),
  };
}

it('the worker refuses a database whose order-notes revision is not the packaged head, naming both', async () => {
  // Nothing listens on port 1: the worker stops before it connects to the workflow engine.
  expect(await refusal(WORKER_MAIN, { WORKFLOW_HOST: '127.0.0.1:1', WORKER_PORT: '0' })).toEqual({ code: 78, lines: [REFUSAL] });
});

it('the consumer refuses it too, before it joins a consumer group', async () => {
  expect(await refusal(CONSUMER_MAIN, { BROKER_ADDRESS: inject('kafkaBrokers'), CONSUMER_PORT: '0' })).toEqual({
    code: 78,
    lines: [REFUSAL],
  });
});

it('the consumer starts once the api (here its migration step) brought the extension to its head', async () => {
  await migrateRepositoryExtensions(database.url);
  const consumer = spawnService(CONSUMER_MAIN, {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    CACHE_URL: inject('redisUrl'),
    BROKER_ADDRESS: inject('kafkaBrokers'),
    CONSUMER_PORT: '0',
  });
  try {
    await consumer.listening();
  } finally {
    consumer.child.kill('SIGTERM');
    expect((await consumer.exited()).code).toBe(0);
  }
});
