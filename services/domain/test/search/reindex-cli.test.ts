import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresSearchEngine } from '@shop/platform';
import { ADMIN_INDEX, STOREFRONT_INDEX } from '../../src/search/search-indexes.ts';
import { openCommerce, seedCatalog, type Catalog, type Commerce } from '../support/commerce.ts';

const CLI = fileURLToPath(new URL('../../src/search/reindex-cli.ts', import.meta.url));

let commerce: Commerce;
let catalog: Catalog;

beforeAll(async () => {
  commerce = await openCommerce('search_reindex_cli');
  catalog = await seedCatalog(commerce, 'rc');
});
afterAll(async () => commerce?.close());

/** Runs the command as `npm run search:reindex` does; resolves with its exit code and output, never rejects. */
async function reindex(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

it('rebuilds both indexes from the database, printing rows done, rows left and the rate as it goes', async () => {
  for (const sku of ['red-mug', 'blue-mug', 'green-mug']) await catalog.product(sku, '9.00', 1);
  const databaseUrl = commerce.platform.database.url;

  const { code, stdout } = await reindex(['--batch-size=2'], { DATABASE_URL: databaseUrl });

  expect(code).toBe(0);
  expect(stdout.trim().split('\n')).toEqual([
    'rebuilding the admin search index in PostgreSQL full text, in batches of 2 rows',
    expect.stringMatching(/^admin: 2 rows indexed, 1 left, \d+ rows\/s$/),
    expect.stringMatching(/^admin: 3 rows indexed, 0 left, \d+ rows\/s$/),
    'rebuilding the storefront search index in PostgreSQL full text, in batches of 2 rows',
    expect.stringMatching(/^storefront: 2 rows indexed, 1 left, \d+ rows\/s$/),
    expect.stringMatching(/^storefront: 3 rows indexed, 0 left, \d+ rows\/s$/),
    expect.stringMatching(/^6 rows indexed in \d+\.\d s$/),
  ]);
  const engine = postgresSearchEngine(commerce.platform.database.prisma);
  expect(
    (await engine.search(STOREFRONT_INDEX, { text: 'mug', filters: { channel: `${catalog.channelId}` }, limit: 10, offset: 0 })).total,
  ).toBe(3);
  expect((await engine.search(ADMIN_INDEX, { text: 'green', filters: { kind: 'product' }, limit: 10, offset: 0 })).total).toBe(1);
});

it('refuses an unknown index with its usage and exit code 64', async () => {
  const { code, stderr } = await reindex(['--index=orders'], { DATABASE_URL: commerce.platform.database.url });
  expect(code).toBe(64);
  expect(stderr).toMatch(/^usage: reindex-cli.ts \[--index=admin\|storefront\]/);
});

it('stops with one line naming DATABASE_URL when it is not a PostgreSQL URL', async () => {
  const { code, stdout, stderr } = await reindex([], { DATABASE_URL: 'mysql://localhost/shop' });
  expect(code).toBe(78);
  expect(stdout).toBe('');
  expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('DATABASE_URL')]);
});
