// The secrets commands and the api's start check as the real processes run them, on the test PostgreSQL.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyMigrations,
  createLogger,
  loadConfig,
  masterKeyring,
  openDatabase,
  createMetricsRegistry,
  setStoredSecret,
  type Database,
} from '@shop/platform';
import { createTestDatabase, type TestDatabase } from '../infra/isolation.ts';
import { spawnService } from '../support/service-process.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const SECRETS_CLI = path.join(REPO, 'services/platform/src/secrets/cli.ts');
const API = path.join(REPO, 'services/api/src/main.ts');

const [oldKey, newKey, lostKey] = [randomBytes(32), randomBytes(32), randomBytes(32)];
const idOf = (key: Buffer) => masterKeyring(key).current.id;
let testDatabase: TestDatabase;
let database: Database;

beforeAll(async () => {
  testDatabase = await createTestDatabase('secrets_process');
  await applyMigrations(testDatabase.url);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: testDatabase.url });
  database = await openDatabase(config, createLogger({ level: 'ERROR', service: 'test' }), createMetricsRegistry('test'));
});
afterAll(async () => {
  await database?.close();
  await testDatabase?.drop();
});

async function storeUnder(key: Buffer, count: number, prefix: string): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await setStoredSecret(database.prisma, masterKeyring(key), {
      key: `${prefix}.${i}`,
      value: `value ${i}`,
      setAt: new Date(),
      setByStaffUserId: null,
    });
  }
}

const envWith = (current: Buffer, rotatingFrom: readonly Buffer[] = []) => ({
  NODE_ENV: 'test',
  LOG_LEVEL: 'ERROR',
  PORT: '0',
  DATABASE_URL: testDatabase.url,
  SECRETS_MASTER_KEY: current.toString('base64'),
  SECRETS_MASTER_KEY_ROTATING_FROM: rotatingFrom.map((key) => key.toString('base64url')).join(','),
});

/** Runs the secrets command; its stdout and stderr lines in the order written. */
async function run(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, [SECRETS_CLI, ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, lines: output.trim().split('\n') };
}

describe('npm run secrets:status and secrets:rewrap', () => {
  it('reports rows per key id, moves them all to the current key, and reports again', async () => {
    await database.pool.query('TRUNCATE stored_secrets');
    await storeUnder(oldKey, 250, 'old');
    await storeUnder(newKey, 5, 'new');
    const env = envWith(newKey, [oldKey]);

    const status = await run(['status'], env);
    expect(status.code).toBe(0);
    expect(status.lines).toEqual([
      `${idOf(newKey)}          5 rows  current (SECRETS_MASTER_KEY)`,
      `${idOf(oldKey)}        250 rows  readable (SECRETS_MASTER_KEY_ROTATING_FROM)`,
    ]);

    const dir = await mkdtemp(path.join(tmpdir(), 'rewrap-summary-'));
    const summaryFile = path.join(dir, 'termination-log');
    const rewrap = await run(['rewrap', '--batch-size=100', `--summary-file=${summaryFile}`], {
      ...env,
      SECRETS_REWRAP_ROWS_PER_SECOND: '0',
    });
    expect(rewrap.code).toBe(0);
    expect(rewrap.lines[0]).toBe(`rewrapping stored secrets to key id ${idOf(newKey)} in batches of 100, unpaced`);
    expect(rewrap.lines.slice(1, 4).map((line) => line.replace(/\d+ rows\/s$/, 'N rows/s'))).toEqual([
      '100 rows rewrapped, 150 left, N rows/s',
      '200 rows rewrapped, 50 left, N rows/s',
      '250 rows rewrapped, 0 left, N rows/s',
    ]);
    expect(rewrap.lines[4]).toMatch(/^250 rows rewrapped in \d+\.\d s; 0 were written anew meanwhile and kept$/);
    expect(JSON.parse(await readFile(summaryFile, 'utf8'))).toEqual({
      countedAt: expect.any(String),
      rowsPerKeyId: { [idOf(newKey)]: 255 },
    });
    await rm(dir, { recursive: true });

    expect((await run(['status'], envWith(newKey))).lines).toEqual([`${idOf(newKey)}        255 rows  current (SECRETS_MASTER_KEY)`]);
  });

  it('keeps to --rows-per-second over SECRETS_REWRAP_ROWS_PER_SECOND, and refuses a pace that is not a whole number from 0', async () => {
    await database.pool.query('TRUNCATE stored_secrets');
    const paced = await run(['rewrap', '--rows-per-second=2000'], { ...envWith(newKey), SECRETS_REWRAP_ROWS_PER_SECOND: '0' });
    expect(paced.code).toBe(0);
    expect(paced.lines[0]).toBe(`rewrapping stored secrets to key id ${idOf(newKey)} in batches of 500, at most 2000 rows/s`);
    for (const pace of ['-1', '1.5', 'fast']) expect((await run(['rewrap', `--rows-per-second=${pace}`], envWith(newKey))).code).toBe(64);
  });

  it('refuses to rewrap when some rows are under a key it was not given', async () => {
    await database.pool.query('TRUNCATE stored_secrets');
    await storeUnder(lostKey, 2, 'lost');
    const { code, lines } = await run(['rewrap'], envWith(newKey));
    expect(code).toBe(78);
    expect(lines.at(-1)).toBe(
      `config error: SECRETS_MASTER_KEY: stored secrets are under master keys this process does not have: key ids ${idOf(lostKey)} (2 rows); ` +
        'set each of those keys in SECRETS_MASTER_KEY_ROTATING_FROM (docs/secrets.md)',
    );
    const status = await run(['status'], envWith(newKey));
    expect(status.lines).toContain(`${idOf(lostKey)}          2 rows  MISSING: no configured key has this id`);
  });
});

describe('the api at start', () => {
  it('refuses to start with one line when its keys cannot read some stored secrets, and starts once the key is given back', async () => {
    await database.pool.query('TRUNCATE stored_secrets');
    await storeUnder(oldKey, 3, 'old');
    await storeUnder(lostKey, 1, 'lost');

    const refused = spawnService(API, envWith(newKey, [oldKey]), REPO);
    const { code } = await refused.exited();
    expect(code).toBe(78);
    expect(refused.output().trim().split('\n')).toEqual([
      `config error: SECRETS_MASTER_KEY: stored secrets are under master keys this process does not have: key ids ${idOf(lostKey)} (1 row); ` +
        'set each of those keys in SECRETS_MASTER_KEY_ROTATING_FROM (docs/secrets.md)',
    ]);

    // INFO: listening() waits for the line saying it listens.
    const started = spawnService(API, { ...envWith(newKey, [oldKey, lostKey]), LOG_LEVEL: 'INFO' }, REPO);
    try {
      const url = await started.listening();
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      started.child.kill('SIGTERM');
      await started.exited();
    }
  });
});
