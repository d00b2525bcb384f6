// Smoke tests of the built shop/platform image (npm run image:build's OCI archive), run with
// buildah's chroot isolation on the host's network: the api on embedded defaults answering from
// outside, the migration Job's command against PostgreSQL, the seed, the worker and consumer
// refusing a bad configuration, API_WORKERS from the CPU quota, nothing written outside /tmp, and no tools/.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CONSUMER, MIGRATE_COMMAND, WORKER } from '../../cdk8s/src/components.ts';
import { APP_DIR, CPU_COUNT_PATH, WRITABLE_DIR } from '../../images/contents.ts';
import type { BuiltImage } from '../../images/build/build-images.ts';
import { REPOSITORY_ROOT } from '../../images/build/layout.ts';
import { createTestDatabase, type TestDatabase } from '../infra/isolation.ts';
import { command } from '../../images/build/command.ts';
import { freePort } from '../infra/proc.ts';
import { eventually } from '../support/wait.ts';
import { BUILD_TIMEOUT_MS, openBuiltImage } from './support/built-image.ts';
import { imageChecks } from './support/image-checks.ts';
import type { ContainerProcess, ImageContainer } from './support/image-container.ts';

let built: BuiltImage;
let container: ImageContainer;
let database: TestDatabase;

beforeAll(async () => {
  ({ built, container } = await openBuiltImage('platform'));
  database = await createTestDatabase('images');
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await container?.dispose();
  await database?.drop();
});

/** Starts the image's entry point (the api) on a free port and waits until /health answers. */
async function startApi(options: { env?: Record<string, string> } = {}): Promise<{ api: ContainerProcess; url: string }> {
  const port = await freePort();
  const api = container.start(container.config.Entrypoint, { env: { PORT: String(port), ...options.env } });
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      const response = await fetch(`${url}/health`);
      if (!response.ok) throw new Error(`/health answered ${response.status}`);
    },
    { timeoutMs: 60_000, intervalMs: 250, abortReason: () => api.exitReason() },
  );
  return { api, url };
}

/** How many api processes serve: the primary logs how many it started; a single api logs nothing of the kind. */
function workerCount(output: string): number {
  return Number(/api primary \d+ started (\d+) workers/.exec(output)?.[1] ?? 1);
}

/** Every path of the container's root filesystem outside WRITABLE_DIR, each with its modification time. */
async function snapshotOutsideWritable(): Promise<Map<string, string>> {
  const root = container.rootDir;
  const listed = await command('find', [root, '-path', join(root, WRITABLE_DIR), '-prune', '-o', '-printf', '%P\\t%y %T@ %s\\n']);
  return new Map(
    listed
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t') as [string, string]),
  );
}

/**
 * What differs between two snapshots: paths added, removed or changed. A folder's own time is left
 * out: buildah itself adds and removes its mount points (e.g. in /run) around each run.
 */
function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => {
    const [was, is] = [before.get(path), after.get(path)];
    return was === undefined || is === undefined || (!is.startsWith('d ') && was !== is);
  });
}

describe('the shop/platform image', () => {
  imageChecks(() => ({ built, container }));

  it('starts the api on embedded defaults: /health, /ready and { health } answer from outside, it writes only under /tmp and stops with 0 on SIGTERM', async () => {
    const before = await snapshotOutsideWritable();
    const { api, url } = await startApi();
    try {
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${url}/ready`);
      expect(ready.status, await ready.clone().text()).toBe(200);
      const graphql = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ health }' }),
      });
      expect(await graphql.json()).toEqual({ data: { health: expect.anything() } });
    } finally {
      const { code, output } = await api.stop();
      expect(output).toMatch(/embedded PGlite/);
      expect(code, output).toBe(0);
    }
    expect(await readdir(join(container.rootDir, WRITABLE_DIR))).toContain('pglite');
    expect(differences(before, await snapshotOutsideWritable())).toEqual([]);
  });

  it('applies every migration to PostgreSQL with the command the migration Job runs, then seeds', async () => {
    // The kubelet provides /dev/termination-log in a pod; here the summary goes to the writable directory.
    const summaryFile = `${WRITABLE_DIR}/termination-log`;
    const command = MIGRATE_COMMAND.map((arg) => (arg.startsWith('--summary-file=') ? `--summary-file=${summaryFile}` : arg));
    const migrate = await container.run(command, { env: { DATABASE_URL: database.url } });
    expect(migrate.code, migrate.output).toBe(0);
    expect(JSON.parse(await readFile(join(container.rootDir, summaryFile), 'utf8'))).toMatchObject({ downgradeRefused: false });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ applied: string }>(
        'SELECT count(*) AS applied FROM _prisma_migrations WHERE finished_at IS NOT NULL',
      );
      const migrations = (await readdir(join(REPOSITORY_ROOT, 'prisma/migrations'), { withFileTypes: true })).filter((entry) =>
        entry.isDirectory(),
      );
      expect(Number(rows[0]?.applied)).toBe(migrations.length);
    } finally {
      await client.end();
    }
    const seed = await container.run(['node', 'services/api/src/seed.ts'], {
      env: { DATABASE_URL: database.url, SEED_ADMIN_EMAIL: 'admin@example.com', SEED_ADMIN_PASSWORD: 'image-smoke-test' },
    });
    expect(seed.code, seed.output).toBe(0);
    expect(seed.output).toMatch(/^seeded: admin admin@example\.com created/m);
  });

  it('counts the CPUs of a cgroup v2 or v1 CPU quota, at most those it can run on', async () => {
    const cpus = Number((await container.run(['nproc'])).output);
    const cases: Array<{ files: Record<string, string>; expected: number }> = [
      { files: { 'cpu.max': 'max 100000' }, expected: cpus },
      { files: { 'cpu.max': '100000 100000' }, expected: 1 },
      { files: { 'cpu.max': '150000 100000' }, expected: Math.min(2, cpus) },
      { files: { 'cpu.max': `${(cpus + 3) * 100000} 100000` }, expected: cpus },
      { files: { 'cpu/cpu.cfs_quota_us': '-1', 'cpu/cpu.cfs_period_us': '100000' }, expected: cpus },
      { files: { 'cpu/cpu.cfs_quota_us': '50000', 'cpu/cpu.cfs_period_us': '100000' }, expected: 1 },
      { files: {}, expected: cpus },
    ];
    for (const [index, { files, expected }] of cases.entries()) {
      const dir = `${WRITABLE_DIR}/cgroup-${index}`;
      for (const [name, content] of Object.entries(files)) {
        await mkdir(dirname(join(container.rootDir, dir, name)), { recursive: true });
        await writeFile(join(container.rootDir, dir, name), `${content}\n`);
      }
      const { code, output } = await container.run([CPU_COUNT_PATH, dir]);
      expect({ files, code, cpus: Number(output) }).toEqual({ files, code: 0, cpus: expected });
    }
  });

  it('starts as many api workers as the container has CPUs when the database and cache are external', async () => {
    const cpus = Number((await container.run([CPU_COUNT_PATH])).output);
    const { api } = await startApi({ env: { DATABASE_URL: database.url, CACHE_URL: inject('redisUrl') } });
    expect(workerCount((await api.stop()).output)).toBe(cpus);
  });

  it('carries no development tools: no tools/ folder, and the test gateway cannot be loaded', () => {
    expect(existsSync(join(container.rootDir, APP_DIR, 'tools'))).toBe(false);
    expect(existsSync(join(container.rootDir, APP_DIR, 'node_modules/@shop/test-gateway/package.json'))).toBe(false);
  });

  it('runs the worker, which refuses a configuration without WORKFLOW_HOST with exit code 78', async () => {
    const { code, output } = await container.run(['node', WORKER.entrypoint]);
    expect(code, output).toBe(78);
    expect(output).toMatch(/^config error: WORKFLOW_HOST: /m);
  });

  it('runs the consumer, which refuses BROKER_ADDRESS without DATABASE_URL with exit code 78', async () => {
    const { code, output } = await container.run(['node', CONSUMER.entrypoint], { env: { BROKER_ADDRESS: '127.0.0.1:9092' } });
    expect(code, output).toBe(78);
    expect(output).toMatch(/^config error: DATABASE_URL: /m);
  });
});
