// The schema version the migrate command records, its refusal to run older code on a newer schema, and the
// extensions' migrations it applies, as the command runs on the test PostgreSQL.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { disabledLogger, EXIT_DOWNGRADE_REFUSED, parseMigrationSummary } from '@shop/runtime';
import { createTestDatabase } from '../../../../../test/infra/isolation.ts';
import {
  applyMigrations,
  compareVersions,
  DowngradeRefusedError,
  imageVersion,
  recordedSchemaVersion,
  withSchemaVersion,
} from '../../../src/db/migrations/index.ts';
import { discoverExtensions } from '../../../src/extensions/discovery.ts';
import { extensionRevisionMismatch } from '../../../src/extensions/extension-migrations.ts';
import { REPO_ROOT } from '../../../src/repository.ts';

const CLI = path.join(REPO_ROOT, 'services/platform/src/db/migrations/cli.ts');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function freshDatabase(): Promise<string> {
  const database = await createTestDatabase('schema_version');
  cleanups.push(() => database.drop());
  return database.url;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const recorded = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await recordedSchemaVersion(client);
  } finally {
    await client.end();
  }
};

const coreMigrated = async (url: string) =>
  (await query<{ table: string | null }>(url, "SELECT to_regclass('_prisma_migrations')::text AS table"))[0]?.table != null;

/** Runs `cli.ts deploy` with a summary file; its exit code, stderr, and the summary it wrote. */
async function deploy(url: string, ...flags: string[]) {
  const directory = await mkdtemp(path.join(tmpdir(), 'schema-version-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  const summaryFile = path.join(directory, 'termination-log');
  const child = spawn(process.execPath, [CLI, 'deploy', `--summary-file=${summaryFile}`, ...flags], {
    env: { PATH: process.env.PATH, DATABASE_URL: url },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const summary = parseMigrationSummary(await readFile(summaryFile, 'utf8').catch(() => ''));
  return { code, stderr: stderr.trim(), summary };
}

describe('npm run db:migrate and the schema version', () => {
  it('records the image version on a fresh database and leaves it in the summary file', async () => {
    const url = await freshDatabase();
    const version = await imageVersion();

    const result = await deploy(url);

    expect(result).toEqual({ code: 0, stderr: '', summary: { schemaVersion: version, imageVersion: version, downgradeRefused: false } });
    expect(await recorded(url)).toBe(version);
    expect(await coreMigrated(url)).toBe(true);
  });

  it("applies the extensions' migrations with the core's, so that the worker and consumer find them at their head", async () => {
    const url = await freshDatabase();
    const extensions = await discoverExtensions({ root: REPO_ROOT, devDir: undefined, logger: disabledLogger() });
    expect(extensions.filter((extension) => extension.manifest.migrations !== undefined).map((extension) => extension.id)).toContain(
      'order-notes',
    );
    const pool = new pg.Pool({ connectionString: url });
    cleanups.push(() => pool.end());
    expect(await extensionRevisionMismatch(pool, extensions)).toContain('extension order-notes: the database is at revision none');

    expect((await deploy(url)).code).toBe(0);

    expect(await extensionRevisionMismatch(pool, extensions)).toBeUndefined();
  });

  it('refuses, with its own exit code and one line, to migrate a schema a newer version migrated, and applies nothing', async () => {
    const url = await freshDatabase();
    // Recorded on an empty database, so that anything the command applied would show.
    await withSchemaVersion(url, '999.0.0', async () => {});
    const version = await imageVersion();

    const result = await deploy(url);

    expect(result.code).toBe(EXIT_DOWNGRADE_REFUSED);
    expect(result.stderr).toBe(
      `error: the database schema was migrated by version 999.0.0, newer than this image's ${version}: refusing to run older code on a newer schema; deploy a version at least as new, or pass --allow-downgrade`,
    );
    expect(result.summary).toEqual({ schemaVersion: '999.0.0', imageVersion: version, downgradeRefused: true });
    expect(await coreMigrated(url)).toBe(false);
  });

  it('runs an older version with --allow-downgrade and keeps the newer version recorded', async () => {
    const url = await freshDatabase();
    await withSchemaVersion(url, '999.0.0', () => applyMigrations(url));

    const result = await deploy(url, '--allow-downgrade');

    expect(result).toMatchObject({ code: 0, summary: { schemaVersion: '999.0.0', downgradeRefused: false } });
    expect(await coreMigrated(url)).toBe(true);
    expect(await recorded(url)).toBe('999.0.0');
  });

  it('moves the recorded version forward only, and refuses an older one without running it', async () => {
    const url = await freshDatabase();
    await withSchemaVersion(url, '1.2.0', async () => {});
    expect(await withSchemaVersion(url, '1.10.0-rc.1', async () => {})).toBe('1.10.0-rc.1');
    expect(await withSchemaVersion(url, '1.10.0', async () => {})).toBe('1.10.0');

    let ran = false;
    const older = withSchemaVersion(url, '1.10.0-rc.2', async () => {
      ran = true;
    });

    await expect(older).rejects.toBeInstanceOf(DowngradeRefusedError);
    expect(ran).toBe(false);
    expect(await recorded(url)).toBe('1.10.0');
  });
});

describe('compareVersions', () => {
  it('orders by semantic version precedence', () => {
    const ascending = [
      '0.9.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.10',
      '1.2.0',
      '10.0.0',
    ];
    const shuffled = [...ascending].reverse();
    expect(shuffled.sort(compareVersions)).toEqual(ascending);
    expect(compareVersions('1.0.0+build.5', '1.0.0')).toBe(0);
    expect(() => compareVersions('1.0', '1.0.0')).toThrow('1.0 is not a semantic version');
  });
});
