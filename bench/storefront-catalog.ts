// The storefront benchmarks' catalog: the demo seed with stock out of reach of a run's orders, and
// what shoppers pick from, read through the api itself.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Catalog } from './shoppers.ts';

const STOCK = 100_000_000;
const SEED = path.resolve(import.meta.dirname, '../services/api/src/seed.ts');

/** `npm run db:seed` (the demo catalog), then every product's stock raised out of reach of the run's orders. */
export async function seedDemoCatalog(databaseUrl: string): Promise<void> {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    LOG_LEVEL: 'ERROR',
    DATABASE_URL: databaseUrl,
    SEED_ADMIN_EMAIL: 'admin@shop.test',
    SEED_ADMIN_PASSWORD: randomBytes(16).toString('hex'),
  };
  await promisify(execFile)(process.execPath, [SEED], { env, timeout: 120_000 });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('UPDATE stock_levels SET on_hand = $1', [STOCK]);
  } finally {
    await client.end();
  }
}

async function graphql<T>(url: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-channel-id': 'web' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors !== undefined || body.data === undefined) throw new Error(`${query}: ${response.status} ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** What the shoppers pick from, through the api itself. */
export async function discoverCatalog(url: string): Promise<Catalog> {
  const { products } = await graphql<{ products: { nodes: { id: string; slug: string; available: number }[] } }>(
    url,
    '{ products(first: 100) { nodes { id slug available } } }',
  );
  const { categories } = await graphql<{ categories: { id: string; children: { id: string }[] }[] }>(
    url,
    '{ categories { id children { id } } }',
  );
  const { brands } = await graphql<{ brands: { id: string }[] }>(url, '{ brands { id } }');
  const page = await graphql<{ products: { pageInfo: { endCursor: string } } }>(url, '{ products(first: 4) { pageInfo { endCursor } } }');
  const short = products.nodes.filter((product) => product.available < STOCK / 2);
  if (products.nodes.length === 0 || short.length > 0)
    throw new Error(`the catalog is not stocked for the run: ${JSON.stringify(products.nodes)}`);
  return {
    products: products.nodes.map(({ id, slug }) => ({ id, slug })),
    categoryIds: categories.flatMap((category) => [category.id, ...category.children.map((child) => child.id)]),
    brandIds: brands.map((brand) => brand.id),
    secondPageCursor: page.products.pageInfo.endCursor,
  };
}
