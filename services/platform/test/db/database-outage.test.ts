import { afterAll, beforeAll, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createLogger } from '@shop/runtime';
import { startPostgres, type ServerHandle } from '../../../../test/infra/servers.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';

let postgres: ServerHandle;
let database: Database;

beforeAll(async () => {
  postgres = await startPostgres();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: postgres.url });
  database = await openDatabase(config, createLogger({ level: 'ERROR', service: 'test' }), new Registry());
});

afterAll(async () => {
  await database?.close();
  await postgres?.dispose();
});

it("survives the server going away under a checked-out client between two queries, and fails that client's next query", async () => {
  const client = await database.pool.connect();
  await client.query('SELECT 1');
  // The client emits 'error' when its connection ends: without a listener of the pool's own that is
  // an uncaught exception, which fails this test file.
  await postgres.stop();
  await expect(client.query('SELECT 1')).rejects.toThrow();
  client.release(true);

  await postgres.start();
  await expect(database.pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
});
