import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@shop/runtime';
import { discoverExtensions } from '../../src/extensions/discovery.ts';
import { extensionSetHash, type LockedExtension } from '../../src/extensions/extension-lock.ts';

let base: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'extension-discovery-'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

let count = 0;

/** A deployment folder of its own: package.json with `dependencies`, and the lockfile pinning `locked`. */
async function deployment(dependencies: Record<string, string>, locked: readonly LockedExtension[]): Promise<string> {
  count += 1;
  const root = path.join(base, `deployment-${count}`);
  await mkdir(path.join(root, 'extensions'), { recursive: true });
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'deployment', dependencies }));
  await writeFile(
    path.join(root, 'extensions', 'extensions.lock.json'),
    JSON.stringify({ extensions: locked, setHash: extensionSetHash(locked) }),
  );
  return root;
}

async function writePackage(dir: string, manifest: Record<string, unknown>): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest));
  return dir;
}

const extension = (name: string, id: string, version: string, shop: Record<string, unknown> = {}) => ({
  name,
  version,
  shop: { id, ...shop },
});

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'INFO',
    service: 'test',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, warnings: () => lines.filter((line) => line['level'] === 'WARNING').map((line) => line['msg']), lines };
}

describe('discovering extensions', () => {
  it('finds installed dependencies, then extensions/, then SHOP_DEV_EXTENSIONS; a later one replaces one of the same id', async () => {
    const locked = [
      { id: 'reviews', version: '2.0.0' },
      { id: 'gift-wrap', version: '1.0.0' },
      { id: 'loyalty', version: '0.1.0' },
    ];
    const root = await deployment({ '@acme/reviews': '^2.0.0', 'left-pad': '^1.0.0' }, locked);
    // Installed: a declared dependency with a `shop` field; one without is a plain library.
    await writePackage(path.join(root, 'node_modules', '@acme', 'reviews'), extension('@acme/reviews', 'reviews', '2.0.0'));
    await writePackage(path.join(root, 'node_modules', 'left-pad'), { name: 'left-pad', version: '1.0.0' });
    // Installed but not declared: not an extension of this deployment.
    await writePackage(path.join(root, 'node_modules', 'stray'), extension('stray', 'stray', '1.0.0'));
    await writePackage(path.join(root, 'extensions', 'gift-wrap'), extension('@shop/gift-wrap', 'gift-wrap', '1.0.0'));
    await writePackage(path.join(root, 'extensions', 'loyalty'), extension('@shop/loyalty', 'loyalty', '0.1.0'));
    await writePackage(path.join(root, 'extensions', 'not-an-extension'), { name: 'helper', version: '1.0.0' });
    const devDir = path.join(root, 'dev');
    const devReviews = await writePackage(path.join(base, `dev-reviews-${count}`), extension('@acme/reviews', 'reviews', '2.0.0'));
    await mkdir(devDir);
    await symlink(devReviews, path.join(devDir, 'reviews'));

    const { logger, warnings, lines } = capturingLogger();
    const found = await discoverExtensions({ root, devDir, logger });
    expect(found.map(({ id, source }) => `${id} (${source})`)).toEqual(['gift-wrap (in-tree)', 'loyalty (in-tree)', 'reviews (dev)']);
    expect(found.find((each) => each.id === 'reviews')?.dir).toBe(devReviews);
    expect(lines.map((line) => line['msg'])).toContain(
      `extension reviews: the dev one (${devReviews}) replaces the installed one (${path.join(root, 'node_modules', '@acme', 'reviews')})`,
    );
    expect(warnings()).toEqual([]);
  });

  it('logs one warning naming what differs from the lockfile, and returns the set anyway', async () => {
    const root = await deployment({}, [
      { id: 'reviews', version: '2.0.0' },
      { id: 'gift-wrap', version: '1.0.0' },
    ]);
    await writePackage(path.join(root, 'extensions', 'gift-wrap'), extension('@shop/gift-wrap', 'gift-wrap', '1.1.0'));
    await writePackage(path.join(root, 'extensions', 'loyalty'), extension('@shop/loyalty', 'loyalty', '0.1.0'));

    const { logger, warnings } = capturingLogger();
    const found = await discoverExtensions({ root, logger });
    expect(found.map((each) => each.id)).toEqual(['gift-wrap', 'loyalty']);
    expect(warnings()).toEqual([
      'the extensions differ from extensions/extensions.lock.json: missing reviews@2.0.0; not locked loyalty@0.1.0; gift-wrap is 1.1.0 (locked 1.0.0); starting anyway',
    ]);
  });

  it.each([
    [{ id: 'Bad Id' }, 'extension @shop/bad (DIR): shop.id must match pattern "^[a-z][a-z0-9-]{0,39}$"'],
    [{ id: 'bad', permissions: [{ name: 'bad.use' }] }, 'extension @shop/bad (DIR): shop.permissions[0].description is required'],
    [{ id: 'bad', listeners: 'src/listeners.ts' }, 'extension @shop/bad (DIR): shop.listeners must be a module path starting with ./'],
    [{ id: 'bad', tables: ['x'] }, 'extension @shop/bad (DIR): shop.tables is not a manifest field'],
    [
      { id: 'bad', settings: [{ key: 'limit', type: 'decimal', description: 'A limit' }] },
      'extension @shop/bad (DIR): shop.settings[0].type must be one of string, integer, number, boolean',
    ],
    [
      { id: 'bad', settings: [{ key: 'limit', type: 'integer', default: 2.5, description: 'A limit' }] },
      'extension @shop/bad (DIR): shop.settings[0].default must be a whole number',
    ],
    [
      { id: 'bad', settings: [{ key: 'limit', type: 'integer', default: 0, minimum: 1, description: 'A limit' }] },
      'extension @shop/bad (DIR): shop.settings[0].default must be a whole number of at least 1',
    ],
    [
      { id: 'bad', settings: [{ key: 'rate', type: 'number', minimum: 2, maximum: 1, description: 'A rate' }] },
      'extension @shop/bad (DIR): shop.settings[0].minimum must not be above its maximum',
    ],
    [
      { id: 'bad', settings: [{ key: 'name', type: 'string', maximum: 10, description: 'A name' }] },
      'extension @shop/bad (DIR): shop.settings[0].minimum and maximum are only for integer and number settings',
    ],
    [
      { id: 'bad', settings: [{ key: 'token', type: 'integer', secret: true, description: 'A token' }] },
      'extension @shop/bad (DIR): shop.settings[0].type must be "string" for a secret',
    ],
    [
      { id: 'bad', settings: [{ key: 'token', type: 'string', secret: true, default: 'x', description: 'A token' }] },
      'extension @shop/bad (DIR): shop.settings[0].default is not allowed for a secret',
    ],
    [
      {
        id: 'bad',
        settings: [
          { key: 'a', type: 'string', description: 'A' },
          { key: 'a', type: 'boolean', description: 'B' },
        ],
      },
      'extension @shop/bad (DIR): shop.settings[1].key "a" is declared twice',
    ],
    [{ id: 'bad', workflows: './src/workflows.ts' }, 'extension @shop/bad (DIR): shop.workflows must be object'],
    [
      {
        id: 'bad',
        workflows: {
          module: './src/workflows.ts',
          schedules: [{ id: 'digest', workflowType: 'DigestWorkflow', everyMinutes: 60, description: 'Digests' }],
        },
      },
      'extension @shop/bad (DIR): shop.workflows.schedules[0].id must start with "bad."',
    ],
    [
      {
        id: 'bad',
        workflows: {
          module: './src/workflows.ts',
          schedules: [{ id: 'bad.digest', workflowType: 'DigestWorkflow', everyMinutes: 0, description: 'Digests' }],
        },
      },
      'extension @shop/bad (DIR): shop.workflows.schedules[0].everyMinutes must be >= 1',
    ],
  ])('stops on a bad manifest with one line naming the extension and the field (%j)', async (shop, message) => {
    const root = await deployment({}, []);
    const dir = await writePackage(path.join(root, 'extensions', 'bad'), { name: '@shop/bad', version: '1.0.0', shop });
    await expect(discoverExtensions({ root, logger: capturingLogger().logger })).rejects.toThrow(message.replace('DIR', dir));
  });

  it('refuses a migrations head that is not the newest migration of the chain', async () => {
    const root = await deployment({}, []);
    const dir = await writePackage(
      path.join(root, 'extensions', 'notes'),
      extension('@shop/notes', 'notes', '1.0.0', { migrations: { dir: 'migrations', head: '1_first' } }),
    );
    for (const name of ['1_first', '2_second']) {
      await mkdir(path.join(dir, 'migrations', name), { recursive: true });
      await writeFile(path.join(dir, 'migrations', name, 'migration.sql'), 'SELECT 1;');
    }
    await expect(discoverExtensions({ root, logger: capturingLogger().logger })).rejects.toThrow(
      'extension notes: shop.migrations.head is "1_first" but the newest migration in migrations is "2_second"',
    );
  });
});
