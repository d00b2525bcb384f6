// An extension linked through SHOP_DEV_EXTENSIONS, run by the real api and consumer processes: the set differs
// from the lockfile (one warning, and they start), its chain is migrated by the api, and its consumer handler
// runs in the api's outbox dispatcher without a broker and as a consumer group of its own with one.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { applyMigrations } from '@shop/platform';
import { createTestDatabase, uniqueName, type TestDatabase } from '../infra/isolation.ts';
import { spawnService, type ServiceProcess } from '../support/service-process.ts';
import { createTopic, produceEvents, testEvent } from '../../services/consumer/test/support/kafka.ts';

const API_MAIN = path.resolve(import.meta.dirname, '../../services/api/src/main.ts');
const CONSUMER_MAIN = path.resolve(import.meta.dirname, '../../services/consumer/src/main.ts');
const TOPIC = 'shop.leads.created.v1';

let database: TestDatabase;
let pool: pg.Pool;
let devDir: string;
const spawned: ServiceProcess[] = [];

/** lead-log: a table of the lead events it handled, filled by a consumer handler of its own group. */
async function writeLeadLog(dir: string, group: string): Promise<void> {
  const extension = path.join(dir, 'lead-log');
  await mkdir(path.join(extension, 'migrations', '20260101000000_lead_log'), { recursive: true });
  await writeFile(
    path.join(extension, 'package.json'),
    JSON.stringify({
      name: '@test/lead-log',
      version: '1.0.0',
      type: 'module',
      shop: { id: 'lead-log', migrations: { dir: 'migrations', head: '20260101000000_lead_log' }, consumerHandlers: './handlers.js' },
    }),
  );
  await writeFile(
    path.join(extension, 'migrations', '20260101000000_lead_log', 'migration.sql'),
    'CREATE TABLE lead_log (event_id uuid PRIMARY KEY);',
  );
  await writeFile(
    path.join(extension, 'handlers.js'),
    `export const consumerHandlers = [{
      name: 'lead-log.${group}',
      topics: ['${TOPIC}'],
      handle: (tx, { eventId }) => tx.$executeRawUnsafe('INSERT INTO lead_log (event_id) VALUES ($1::uuid) ON CONFLICT DO NOTHING', eventId),
    }];\n`,
  );
}

beforeAll(async () => {
  database = await createTestDatabase('dev_extension');
  await applyMigrations(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  devDir = await mkdtemp(path.join(tmpdir(), 'shop-dev-extensions-'));
  await writeLeadLog(devDir, uniqueName('leads'));
});

afterAll(async () => {
  for (const service of spawned) service.child.kill('SIGKILL');
  await pool?.end();
  await database?.drop();
  await rm(devDir, { recursive: true, force: true });
});

function start(entry: string, env: NodeJS.ProcessEnv): ServiceProcess {
  const service = spawnService(entry, {
    NODE_ENV: 'development',
    LOG_LEVEL: 'INFO',
    DATABASE_URL: database.url,
    CACHE_URL: inject('redisUrl'),
    SHOP_DEV_EXTENSIONS: devDir,
    ...env,
  });
  spawned.push(service);
  return service;
}

async function stop(service: ServiceProcess): Promise<void> {
  service.child.kill('SIGTERM');
  expect((await service.exited()).code).toBe(0);
}

const handled = async (eventId: string) =>
  (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM lead_log WHERE event_id = $1', [eventId])).rows[0]?.n;

it('the api warns once that the set is not the locked one, migrates the chain and runs the handler without a broker', async () => {
  const api = start(API_MAIN, { PORT: '0' });
  try {
    await api.listening();
    const warnings = () =>
      api
        .logLines()
        .filter((line) => line['level'] === 'WARNING')
        .map((line) => line['msg']);
    expect(warnings().filter((message) => String(message).includes('extensions.lock.json'))).toEqual([
      'the extensions differ from extensions/extensions.lock.json: not locked lead-log@1.0.0; starting anyway',
    ]);
    await expect
      .poll(() => api.logLines().map((line) => line['msg']), { timeout: 10_000 })
      .toContain('extension lead-log: applied 20260101000000_lead_log');

    const { eventId, key, payload } = testEvent('lead-1');
    await pool.query('INSERT INTO outbox_events (event_id, name, partition_key, payload) VALUES ($1, $2, $3, $4)', [
      eventId,
      TOPIC,
      key,
      payload,
    ]);
    await expect.poll(() => handled(eventId), { timeout: 15_000 }).toBe(1);
  } finally {
    await stop(api);
  }
});

it('the consumer runs the handler as a consumer group of its own', async () => {
  const brokers = inject('kafkaBrokers');
  await createTopic(brokers, TOPIC, 1);
  const consumer = start(CONSUMER_MAIN, { BROKER_ADDRESS: brokers, CONSUMER_PORT: '0' });
  try {
    await consumer.listening();
    const event = testEvent('lead-2');
    await produceEvents(brokers, TOPIC, [event]);
    await expect.poll(() => handled(event.eventId), { timeout: 30_000 }).toBe(1);
  } finally {
    await stop(consumer);
  }
});
