import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApi } from './support/run-api.ts';
import type { Readiness } from '../src/health/routes.ts';

const PRODUCTION = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgresql://shop@db.internal:5432/shop',
  CACHE_URL: 'redis://cache.internal:6379',
  BROKER_ADDRESS: 'kafka-0.internal:9092,kafka-1.internal:9092',
  SECRET_KEY: 'x'.repeat(48),
  SECRETS_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
};

async function configFailure(env: NodeJS.ProcessEnv): Promise<{ code: number | null; lines: string[] }> {
  const api = runApi(env);
  const { code } = await api.exited();
  return { code, lines: api.output().trim().split('\n') };
}

describe('a bad configuration stops the api before it listens', () => {
  for (const name of ['DATABASE_URL', 'CACHE_URL', 'BROKER_ADDRESS', 'SECRET_KEY', 'SECRETS_MASTER_KEY']) {
    it(`exits 78 naming ${name} when it is missing in production`, async () => {
      const { [name]: _, ...env } = PRODUCTION as Record<string, string>;
      const { code, lines } = await configFailure(env);
      expect(code).toBe(78);
      expect(lines).toEqual([`config error: ${name}: is required in production (NODE_ENV=production)`]);
    });
  }

  const malformed: Array<[string, string, RegExp]> = [
    ['DATABASE_URL', 'not a url', /^config error: DATABASE_URL: must be a URL like postgresql:\/\/host:port$/],
    ['DATABASE_URL', 'mysql://db:3306/shop', /^config error: DATABASE_URL: must use postgresql:\/\/ or postgres:\/\//],
    ['CACHE_URL', 'http://cache:6379', /^config error: CACHE_URL: must use redis:\/\/ or rediss:\/\//],
    ['BROKER_ADDRESS', 'kafka:notaport', /^config error: BROKER_ADDRESS: must be host:port/],
    ['LOG_LEVEL', 'LOUD', /^config error: LOG_LEVEL: must be one of DEBUG, INFO, WARNING, ERROR \(got "LOUD"\)$/],
    ['EVENT_SCHEMA_MODE', 'lenient', /^config error: EVENT_SCHEMA_MODE: must be one of strict, warn \(got "lenient"\)$/],
    ['PORT', '70000', /^config error: PORT: must be a whole number from 0 to 65535/],
    ['SECRETS_MASTER_KEY', 'too-short', /^config error: SECRETS_MASTER_KEY: must be 32 bytes/],
  ];
  for (const [name, value, expected] of malformed) {
    it(`exits 78 naming ${name} when it is "${value}"`, async () => {
      const { code, lines } = await configFailure({ ...PRODUCTION, [name]: value });
      expect(code).toBe(78);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(expected);
    });
  }

  it('reports every problem at once, one line each, and never prints a secret', async () => {
    const secretUrl = 'mysql://admin:hunter2-secret@db:3306/shop';
    const { code, lines } = await configFailure({ ...PRODUCTION, DATABASE_URL: secretUrl, LOG_LEVEL: 'LOUD', SECRET_KEY: 'short' });
    expect(code).toBe(78);
    const named = lines.map((line) => line.split(':')[1]?.trim()).sort();
    expect(named).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'SECRET_KEY']);
    expect(lines.join('\n')).not.toContain('hunter2');
    expect(lines.join('\n')).not.toContain('short');
  });

  it('exits 78 naming GRAPHQL_PERSISTED_QUERIES_FILE when the allow-list cannot be read', async () => {
    const file = path.join(tmpdir(), `no-such-operations-${process.pid}.json`);
    const { code, lines } = await configFailure({
      ...PRODUCTION,
      GRAPHQL_PERSISTED_QUERIES: 'allowlist',
      GRAPHQL_PERSISTED_QUERIES_FILE: file,
    });
    expect(code).toBe(78);
    expect(lines).toEqual([`config error: GRAPHQL_PERSISTED_QUERIES_FILE: ${file}: cannot be read (ENOENT)`]);
  });

  it('refuses the embedded development secret in production', async () => {
    const { code, lines } = await configFailure({ ...PRODUCTION, SECRET_KEY: 'development-only-secret-key-never-use-in-production' });
    expect(code).toBe(78);
    expect(lines).toEqual(['config error: SECRET_KEY: is the embedded development key; generate a new one']);
  });
});

describe('npm start with no variables set', () => {
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'shop-start-'));
  });

  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('serves /health, /ready (embedded) and { health }, then stops cleanly on SIGTERM', async () => {
    // PORT only: the default 3000 may be taken on a developer machine running the tests.
    const api = runApi({ PORT: '0' }, workDir);
    const url = await api.listening();

    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });

    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as Readiness;
    for (const name of ['database', 'cache', 'broker'] as const) {
      expect(body.dependencies[name]).toMatchObject({ status: 'healthy', mode: 'embedded' });
    }

    const graphql = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ health }' }),
    });
    expect(await graphql.json()).toEqual({ data: { health: 'ok' } });

    expect(api.output()).toMatch(/embedded database migrated \(\d+ applied\)/);
    await expect(stat(path.join(workDir, '.data', 'pglite'))).resolves.toBeTruthy();

    api.child.kill('SIGTERM');
    expect((await api.exited()).code).toBe(0);
    expect(api.output()).toContain('"msg":"stopped"');
  });
});
