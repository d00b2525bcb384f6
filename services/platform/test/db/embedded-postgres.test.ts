import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { lockDataDir } from '../../src/db/data-dir-lock.ts';

let dataDir: string;
let embedded: EmbeddedPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-pg-'));
  embedded = await startEmbeddedPostgres(dataDir);
  pool = new pg.Pool({ connectionString: embedded.url, max: 10 });
});

afterAll(async () => {
  await pool?.end();
  await embedded?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the data directory lock', () => {
  it('takes over a lock left by a process that no longer runs', async () => {
    const staleDir = await mkdtemp(path.join(tmpdir(), 'embedded-pg-stale-'));
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    await writeFile(`${staleDir}/db.lock`, String(dead));
    const release = await lockDataDir(`${staleDir}/db`);
    expect(await readFile(`${staleDir}/db.lock`, 'utf8')).toBe(String(process.pid));
    await release();
    await rm(staleDir, { recursive: true, force: true });
  });
});

describe('the embedded database (PGlite over the wire protocol)', () => {
  it('comes up migrated', async () => {
    expect(embedded.applied.length).toBeGreaterThan(0);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL');
    expect(rows[0].n).toBe(embedded.applied.length);
  });

  it('keeps concurrent prepared statements of different connections apart', async () => {
    const queries = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? pool.query<{ v: number }>('SELECT $1::int AS v', [i]).then(({ rows }) => rows[0]?.v)
        : pool.query<{ v: number }>('SELECT $1::int + $2::int AS v', [i, 1000]).then(({ rows }) => rows[0]?.v),
    );
    const results = await Promise.all(queries);
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? i : i + 1000)));
  });

  it('isolates concurrent transactions: a rolled-back write is never seen', async () => {
    await pool.query("DELETE FROM settings WHERE key LIKE 'tx:%'");
    const transaction = async (i: number) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, now())', [`tx:${i}`, JSON.stringify(i)]);
        const { rows } = await client.query("SELECT count(*)::int AS n FROM settings WHERE key LIKE 'tx:%'");
        // why: staggers the commits, so transactions interleave in different orders: the spread is the point
        await new Promise((resolve) => setTimeout(resolve, i % 3));
        await client.query(i % 2 === 0 ? 'COMMIT' : 'ROLLBACK');
        return rows[0].n as number;
      } finally {
        client.release();
      }
    };
    const seen = await Promise.all(Array.from({ length: 20 }, (_, i) => transaction(i)));
    // Inside its own transaction each one sees its row plus the committed ones before it, never an uncommitted one.
    for (const n of seen) expect(n).toBeLessThanOrEqual(11);
    const { rows } = await pool.query("SELECT key FROM settings WHERE key LIKE 'tx:%' ORDER BY key");
    expect(rows.map((row) => row.key).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `tx:${i * 2}`).sort());
  });

  it('refuses a second process on the same data directory, naming the one that holds it', async () => {
    await expect(startEmbeddedPostgres(dataDir)).rejects.toThrow(
      new RegExp(`^the embedded database did not start: ${dataDir} is in use by another process \\(pid \\d+\\)`),
    );
    const { rows } = await pool.query('SELECT 1 AS still_serving');
    expect(rows[0].still_serving).toBe(1);
  });

  it('rolls back the transaction of a connection that goes away, and serves the others', async () => {
    const client = new pg.Client({ connectionString: embedded.url });
    client.on('error', () => {});
    await client.connect();
    await client.query('BEGIN');
    await client.query("INSERT INTO settings (key, value, updated_at) VALUES ('abandoned', '1', now())");
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM settings WHERE key = 'abandoned'");
    expect(rows[0].n).toBe(0);
  });
});
