import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import pg from 'pg';
import { Registry } from 'prom-client';
import { createTestDatabase, endPool, uniqueName, type TestDatabase } from '../../../../test/infra/isolation.ts';
import { applyMigrations } from '../../src/db/migrations/index.ts';
import { createLogger } from '@shop/runtime';
import { MemoryCache } from '../../src/cache/memory/memory-cache.ts';
import { RedisCache } from '../../src/cache/redis/redis-cache.ts';
import type { Cache } from '../../src/cache/cache.ts';
import { RateLimitPolicies, type RateLimitPoliciesOptions } from '../../src/rate-limit/policies.ts';
import { DEFAULT_RATE_LIMIT_POLICIES } from '../../src/rate-limit/policy.ts';
import { openRateLimiter } from '../../src/rate-limit/open-rate-limiter.ts';
import { waitFor } from '../../../../test/support/wait.ts';
import { capturingLogger } from '../support/rate-limit.ts';

const quietLogger = createLogger({ level: 'ERROR', service: 'test' });
const HOUR_MS = 3_600_000;
const PROMISED_MS = 5_000;

/** Waits until `check` holds, at most the promised 5 s; resolves to the milliseconds it took. */
async function within(check: () => boolean | Promise<boolean>): Promise<number> {
  const started = performance.now();
  await waitFor(check, PROMISED_MS, 'the change to be seen', 25);
  return performance.now() - started;
}

let database: TestDatabase;
let pool: pg.Pool;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  database = await createTestDatabase('rate_limit_policies');
  await applyMigrations(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
});

afterAll(async () => {
  await Promise.allSettled(opened.map((item) => item.close()));
  if (pool !== undefined) await endPool(pool);
  await database?.drop();
});

/** Policies that only NOTIFY can refresh: the fallback polls are an hour apart. */
async function startPolicies(options: Partial<RateLimitPoliciesOptions> = {}): Promise<RateLimitPolicies> {
  const policies = new RateLimitPolicies({
    pool,
    url: database.url,
    logger: quietLogger,
    pollWhileListeningMs: HOUR_MS,
    pollWhileDeafMs: HOUR_MS,
    ...options,
  });
  opened.push(policies);
  await policies.start();
  return policies;
}

describe('the rate_limit_policies table', () => {
  it('is seeded with the defaults the code applies to keys with no row', async () => {
    const { rows } = await pool.query(
      'SELECT key, capacity, refill_per_second::float8 AS refill, enabled FROM rate_limit_policies ORDER BY key',
    );
    const seeded = rows.map((row) => ({ key: row.key, capacity: row.capacity, refillPerSecond: row.refill, enabled: row.enabled }));
    expect(seeded).toEqual([...DEFAULT_RATE_LIMIT_POLICIES].sort((a, b) => a.key.localeCompare(b.key)));
  });

  it('refuses a capacity or refill rate of zero', async () => {
    await expect(pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ('zero', 0, 1)`)).rejects.toThrow(
      /capacity_check/,
    );
    await expect(pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ('zero', 1, 0)`)).rejects.toThrow(
      /refill_per_second_check/,
    );
  });

  it('sets updated_at on every update, from SQL too', async () => {
    const key = uniqueName('touch');
    await pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ($1, 1, 1)`, [key]);
    const before = await pool.query('SELECT updated_at FROM rate_limit_policies WHERE key = $1', [key]);
    await pool.query('UPDATE rate_limit_policies SET capacity = 2 WHERE key = $1', [key]);
    const after = await pool.query('SELECT updated_at FROM rate_limit_policies WHERE key = $1', [key]);
    expect(after.rows[0].updated_at.getTime()).toBeGreaterThan(before.rows[0].updated_at.getTime());
  });
});

describe('RateLimitPolicies', () => {
  it('loads the rows, and applies the defaults before the first load', async () => {
    const policies = new RateLimitPolicies({ pool, url: database.url, logger: quietLogger, listen: false });
    opened.push(policies);
    expect(policies.get('track')).toEqual(DEFAULT_RATE_LIMIT_POLICIES.find((policy) => policy.key === 'track'));
    const key = uniqueName('loaded');
    await pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second, enabled) VALUES ($1, 7, 0.5, false)`, [key]);
    await policies.start();
    expect(policies.get(key)).toEqual({ key, capacity: 7, refillPerSecond: 0.5, enabled: false });
    expect(policies.get('no-such-key')).toBeUndefined();
  });

  it('sees an update, an insert and a delete within 5 s through NOTIFY, without polling', async () => {
    const policies = await startPolicies();
    expect(policies.listening).toBe(true);

    await pool.query(`UPDATE rate_limit_policies SET capacity = 3, refill_per_second = 0.25 WHERE key = 'graphql:captureLead'`);
    const updated = await within(() => policies.get('graphql:captureLead')?.capacity === 3);
    expect(policies.get('graphql:captureLead')).toEqual({ key: 'graphql:captureLead', capacity: 3, refillPerSecond: 0.25, enabled: true });

    const key = uniqueName('inserted');
    await pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ($1, 4, 2)`, [key]);
    const inserted = await within(() => policies.get(key) !== undefined);

    await pool.query(`DELETE FROM rate_limit_policies WHERE key = 'graphql:captureLead'`);
    const deleted = await within(() => policies.get('graphql:captureLead')?.capacity === 10);
    expect(policies.get('graphql:captureLead')).toEqual(DEFAULT_RATE_LIMIT_POLICIES.find((policy) => policy.key === 'graphql:captureLead'));

    // NOTIFY arrives in milliseconds; the 5 s promise leaves room for the polling fallback.
    expect(Math.max(updated, inserted, deleted)).toBeLessThan(1_000);
  });

  it('reconnects its LISTEN connection when it is killed and catches up on what it missed', async () => {
    const { logger, lines } = capturingLogger();
    const policies = await startPolicies({ logger });
    const key = uniqueName('missed');
    await pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ($1, 1, 1)`, [key]);
    await within(() => policies.get(key) !== undefined);

    await pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'rate-limit-policies' AND datname = current_database()`,
    );
    await within(() => !policies.listening);
    await pool.query('UPDATE rate_limit_policies SET capacity = 9 WHERE key = $1', [key]);
    await within(() => policies.get(key)?.capacity === 9);
    await within(() => policies.listening);

    await pool.query('UPDATE rate_limit_policies SET capacity = 8 WHERE key = $1', [key]);
    await within(() => policies.get(key)?.capacity === 8);
    expect(lines.filter((line) => line.level === 'WARNING').map((line) => line.msg)).toEqual([expect.stringMatching(/listener lost/)]);
  });

  it('polls instead when it does not listen (the embedded database)', async () => {
    const policies = await startPolicies({ listen: false, pollWhileDeafMs: 200 });
    expect(policies.listening).toBe(false);
    const key = uniqueName('polled');
    await pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ($1, 2, 1)`, [key]);
    await within(() => policies.get(key) !== undefined);
  });

  it('ignores a row that is not a policy and keeps the rest', async () => {
    const { logger, lines } = capturingLogger();
    const rows = [
      { key: 'good', capacity: 2, refill_per_second: 1, enabled: true },
      { key: 'fractional', capacity: 2.5, refill_per_second: 1, enabled: true },
    ];
    const policies = new RateLimitPolicies({
      pool: { query: async () => ({ rows }) } as unknown as pg.Pool,
      url: database.url,
      logger,
      listen: false,
    });
    opened.push(policies);
    await policies.start();
    expect(policies.get('good')).toBeDefined();
    expect(policies.get('fractional')).toBeUndefined();
    expect(lines.map((line) => line.msg)).toEqual([expect.stringMatching(/capacity must be a whole number/)]);
  });

  it('starts with the defaults when the database is down, and loads once it answers', async () => {
    const { logger, lines } = capturingLogger();
    let down = true;
    const flaky = {
      query: (...args: Parameters<pg.Pool['query']>) => (down ? Promise.reject(new Error('connection refused')) : pool.query(...args)),
    };
    const policies = new RateLimitPolicies({
      pool: flaky as unknown as pg.Pool,
      url: 'postgresql://127.0.0.1:1/none',
      logger,
      pollWhileDeafMs: 100,
    });
    opened.push(policies);
    await policies.start();
    expect(policies.listening).toBe(false);
    expect(policies.all()).toEqual(DEFAULT_RATE_LIMIT_POLICIES);
    down = false;
    const key = uniqueName('recovered');
    await pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ($1, 2, 1)`, [key]);
    await within(() => policies.get(key) !== undefined);
    expect(lines.filter((line) => /cannot read rate_limit_policies/.test(line.msg))).toHaveLength(1);
  });
});

/** A policy changed in the table limits requests within 5 s, with buckets in Redis and in memory. */
function liveChangeContract(name: string, open: () => Promise<Cache>) {
  it(`applies a policy changed in the table within 5 s, without restart (${name})`, async () => {
    const cache = await open();
    opened.push(cache);
    const { limiter, close } = await openRateLimiter({
      database: { pool, url: database.url, mode: 'external' },
      cache,
      metrics: new Registry(),
      logger: quietLogger,
      policies: { pollWhileListeningMs: HOUR_MS, pollWhileDeafMs: HOUR_MS },
    });
    opened.push({ close });
    const key = uniqueName('live');
    await pool.query(`INSERT INTO rate_limit_policies (key, capacity, refill_per_second) VALUES ($1, 2, 0.01)`, [key]);
    await within(async () => (await limiter.take(key, 'probe')) !== undefined);

    const caller = uniqueName('caller');
    const before = await Promise.all(Array.from({ length: 5 }, () => limiter.take(key, caller)));
    expect(before.filter((decision) => decision?.allowed)).toHaveLength(2);

    await pool.query('UPDATE rate_limit_policies SET enabled = false WHERE key = $1', [key]);
    await within(async () => (await limiter.take(key, caller)) === undefined);

    await pool.query('UPDATE rate_limit_policies SET enabled = true, capacity = 6 WHERE key = $1', [key]);
    await within(async () => limiter.policy(key)?.capacity === 6);
    const fresh = uniqueName('caller');
    const after = await Promise.all(Array.from({ length: 10 }, () => limiter.take(key, fresh)));
    expect(after.filter((decision) => decision?.allowed)).toHaveLength(6);
  });
}

describe('openRateLimiter', () => {
  liveChangeContract('memory store', async () => new MemoryCache());
  liveChangeContract('real Redis', async () => {
    const cache = new RedisCache(inject('redisUrl'), quietLogger);
    cache.connect();
    await new Promise((resolve) => cache.client.once('ready', resolve));
    return cache;
  });
});
