import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@shop/runtime';
import { DEVELOPMENT_MASTER_KEY, DEVELOPMENT_SECRET_KEY, loadConfig } from '../../src/config/config.ts';
import { VARIABLES } from '../../src/config/variables.ts';

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('reads only the variables VARIABLES documents, none of the S3_* the s3-storage extension owns', () => {
    const read = new Set<string>();
    const env = new Proxy({ S3_ENDPOINT: 'http://s3.internal:9000', S3_BUCKET: 'media', S3_ACCESS_KEY: 'a' } as NodeJS.ProcessEnv, {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return Reflect.get(target, name);
      },
    });
    expect(problemsOf(env)).toEqual([]);
    expect([...read].filter((name) => !VARIABLES.some((variable) => variable.name === name))).toEqual([]);
    expect(read.size).toBeGreaterThan(10);
  });

  it('runs on embedded defaults with nothing set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      host: '127.0.0.1',
      port: 3000,
      logLevel: 'INFO',
      databaseUrl: undefined,
      cacheUrl: undefined,
      brokers: undefined,
      fileStorageDir: 'uploads',
      eventSchemaMode: 'strict',
      secretKey: DEVELOPMENT_SECRET_KEY,
    });
    expect(config.secretsMasterKey.toString('base64url')).toBe(DEVELOPMENT_MASTER_KEY);
  });

  it('paces the sweeps at 500 rows a second unless told, and refuses a pace under 10', () => {
    expect(loadConfig({}).sweepRowsPerSecond).toBe(500);
    expect(loadConfig({ SWEEP_ROWS_PER_SECOND: '10' }).sweepRowsPerSecond).toBe(10);
    expect(problemsOf({ SWEEP_ROWS_PER_SECOND: '9' })).toEqual([
      'SWEEP_ROWS_PER_SECOND: must be a whole number from 10 to 1000000 (got "9")',
    ]);
  });

  it('paces the rewrap at 5000 rows a second unless told, 0 being unpaced', () => {
    expect(loadConfig({}).secretsRewrapRowsPerSecond).toBe(5_000);
    expect(loadConfig({ SECRETS_REWRAP_ROWS_PER_SECOND: '0' }).secretsRewrapRowsPerSecond).toBe(0);
    expect(problemsOf({ SECRETS_REWRAP_ROWS_PER_SECOND: '-1' })).toEqual([
      'SECRETS_REWRAP_ROWS_PER_SECOND: must be a whole number from 0 to 1000000 (got "-1")',
    ]);
  });

  it('limits GraphQL requests to a cost of 5000 unless told, and answers introspection outside production unless turned off', () => {
    expect(loadConfig({})).toMatchObject({ graphqlMaxCost: 5_000, graphqlIntrospection: true });
    expect(loadConfig({ GRAPHQL_MAX_COST: '500', GRAPHQL_INTROSPECTION: 'off' })).toMatchObject({
      graphqlMaxCost: 500,
      graphqlIntrospection: false,
    });
    expect(problemsOf({ GRAPHQL_MAX_COST: '9', GRAPHQL_INTROSPECTION: 'yes' })).toEqual([
      'GRAPHQL_MAX_COST: must be a whole number from 10 to 1000000 (got "9")',
      expect.stringMatching(/^GRAPHQL_INTROSPECTION: .*on.*off/),
    ]);
  });

  it('reads the persisted queries file whole at start, and names what is wrong with a bad one in one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'persisted-queries-'));
    const file = (name: string, content: string) => {
      writeFileSync(join(dir, name), content);
      return join(dir, name);
    };
    const query = 'query Health { health }';
    const hash = createHash('sha256').update(query).digest('hex');
    const good = file('good.json', JSON.stringify({ [hash]: query }));

    expect(loadConfig({}).graphqlPersistedQueries).toBeUndefined();
    expect(loadConfig({ GRAPHQL_PERSISTED_QUERIES: 'allowlist', GRAPHQL_PERSISTED_QUERIES_FILE: good }).graphqlPersistedQueries).toEqual({
      mode: 'allowlist',
      queries: new Map([[hash, query]]),
    });
    expect(loadConfig({ GRAPHQL_PERSISTED_QUERIES: 'prepared', GRAPHQL_PERSISTED_QUERIES_FILE: good }).graphqlPersistedQueries?.mode).toBe(
      'prepared',
    );

    const problemOf = (content: string) =>
      problemsOf({ GRAPHQL_PERSISTED_QUERIES: 'allowlist', GRAPHQL_PERSISTED_QUERIES_FILE: file('bad.json', content) });
    const bad = join(dir, 'bad.json');
    expect(problemOf('{"a":')).toEqual([expect.stringMatching(new RegExp(`^GRAPHQL_PERSISTED_QUERIES_FILE: ${bad}: is not JSON \\(`))]);
    expect(problemOf('[]')).toEqual([
      `GRAPHQL_PERSISTED_QUERIES_FILE: ${bad}: must hold one JSON object of {"<sha256 of the query>": "<query>"}`,
    ]);
    expect(problemOf('{"Health": "query Health { health }"}')).toEqual([
      `GRAPHQL_PERSISTED_QUERIES_FILE: ${bad}: key "Health" is not a SHA-256 in lowercase hex`,
    ]);
    expect(problemOf(JSON.stringify({ [hash]: 'query Other { health }' }))).toEqual([
      `GRAPHQL_PERSISTED_QUERIES_FILE: ${bad}: ${hash} is not the SHA-256 of its query`,
    ]);
    expect(problemOf('{}')).toEqual([`GRAPHQL_PERSISTED_QUERIES_FILE: ${bad}: registers no operation`]);
    expect(problemsOf({ GRAPHQL_PERSISTED_QUERIES: 'allowlist', GRAPHQL_PERSISTED_QUERIES_FILE: join(dir, 'missing.json') })).toEqual([
      `GRAPHQL_PERSISTED_QUERIES_FILE: ${join(dir, 'missing.json')}: cannot be read (ENOENT)`,
    ]);
    expect(problemsOf({ GRAPHQL_PERSISTED_QUERIES: 'allowlist' })).toEqual([
      expect.stringMatching(/^GRAPHQL_PERSISTED_QUERIES_FILE: is required with GRAPHQL_PERSISTED_QUERIES=allowlist/),
    ]);
    expect(problemsOf({ GRAPHQL_PERSISTED_QUERIES_FILE: good })).toEqual([
      expect.stringMatching(/^GRAPHQL_PERSISTED_QUERIES_FILE: is set but GRAPHQL_PERSISTED_QUERIES is off/),
    ]);
    expect(problemsOf({ GRAPHQL_PERSISTED_QUERIES: 'automatic' })).toEqual([
      expect.stringMatching(/^GRAPHQL_PERSISTED_QUERIES: must be one of off, prepared, allowlist/),
    ]);
    rmSync(dir, { recursive: true });
  });

  it('defaults EVENT_SCHEMA_MODE to warn, introspection to off and HOST to all interfaces in production', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://db/shop',
      CACHE_URL: 'rediss://cache:6380',
      BROKER_ADDRESS: 'k1:9092, k2:9092',
      SECRET_KEY: 's'.repeat(40),
      SECRETS_MASTER_KEY: Buffer.alloc(32, 1).toString('base64url'),
    });
    expect(config.eventSchemaMode).toBe('warn');
    expect(config.graphqlIntrospection).toBe(false);
    expect(config.host).toBe('0.0.0.0');
    expect(config.brokers).toEqual(['k1:9092', 'k2:9092']);
  });

  it('accepts log levels in any case and treats empty values as unset', () => {
    expect(loadConfig({ LOG_LEVEL: 'warning', DATABASE_URL: '' })).toMatchObject({ logLevel: 'WARNING', databaseUrl: undefined });
  });

  it('decodes rotating master keys and rejects a malformed one', () => {
    const older = [Buffer.alloc(32, 2), Buffer.alloc(32, 3)];
    const config = loadConfig({ SECRETS_MASTER_KEY_ROTATING_FROM: older.map((key) => key.toString('base64')).join(',') });
    expect(config.secretsMasterKeysRotatingFrom).toEqual(older);
    expect(problemsOf({ SECRETS_MASTER_KEY_ROTATING_FROM: 'abc' })).toEqual([
      expect.stringMatching(/^SECRETS_MASTER_KEY_ROTATING_FROM: must be 32 bytes/),
    ]);
  });

  it('requires search URLs to be http(s)', () => {
    expect(problemsOf({ ADMIN_SEARCH_URL: 'ftp://search' })).toEqual(['ADMIN_SEARCH_URL: must use http:// or https:// (got ftp://)']);
  });

  it('refuses development-only settings in production', () => {
    const problems = problemsOf({ NODE_ENV: 'production', SHOP_DEV_EXTENSIONS: './ext', SECRETS_MASTER_KEY: DEVELOPMENT_MASTER_KEY });
    expect(problems).toContain('SHOP_DEV_EXTENSIONS: is development-only; unset it in production');
    expect(problems).toContain('SECRETS_MASTER_KEY: is the embedded development key; generate a new one');
  });

  it('never echoes a secret URL in a problem', () => {
    const [problem] = problemsOf({ DATABASE_URL: 'postgresql://user:pa ss@' });
    expect(problem).toBe('DATABASE_URL: must be a URL like postgresql://host:port');
  });

  it('runs the api in one process unless API_WORKERS asks for more, which needs a server database and Redis', () => {
    expect(loadConfig({}).apiWorkers).toBe(1);
    expect(loadConfig({ API_WORKERS: '2', DATABASE_URL: 'postgresql://db/shop', CACHE_URL: 'redis://cache:6379' }).apiWorkers).toBe(2);
    expect(problemsOf({ API_WORKERS: '2' })).toEqual([
      'API_WORKERS: 2 workers need CACHE_URL: they share rate limits and repeat clicks through it',
      'API_WORKERS: 2 workers need DATABASE_URL: the embedded database can be opened by one process only',
    ]);
    expect(problemsOf({ API_WORKERS: '0' })).toEqual(['API_WORKERS: must be a whole number from 1 to 64 (got "0")']);
  });
});
