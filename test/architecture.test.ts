import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

/** What each workspace package may depend on: services -> domain -> platform -> runtime, never back. */
const ALLOWED: Record<string, readonly string[]> = {
  '@shop/runtime': [],
  '@shop/platform': ['@shop/runtime'],
  '@shop/domain': ['@shop/platform'],
  '@shop/api': ['@shop/domain', '@shop/platform'],
  '@shop/worker': ['@shop/domain', '@shop/platform'],
  '@shop/consumer': ['@shop/domain', '@shop/platform'],
  // The browser beacon and the storefront relay run outside the platform: they talk to the api over HTTP.
  '@shop/beacon': [],
  '@shop/storefront-example': ['@shop/beacon', '@shop/runtime'],
  // The operator deploys the platform but never runs its code: only the rendering and the shared runtime.
  '@shop/cdk8s': [],
  '@shop/operator': ['@shop/cdk8s', '@shop/runtime'],
  // An extension builds on the platform's interfaces, as one published outside this repository would.
  '@shop/extension-s3-storage': ['@shop/platform'],
};

const root = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { workspaces: string[] };

async function manifest(dir: string): Promise<{ name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> }> {
  return JSON.parse(await readFile(new URL(`../${dir}/package.json`, import.meta.url), 'utf8'));
}

describe('workspace dependencies point one way', () => {
  for (const dir of root.workspaces) {
    it(`${dir} depends only on the packages below it`, async () => {
      const pkg = await manifest(dir);
      const internal = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((name) => name.startsWith('@shop/'));
      const allowed = ALLOWED[pkg.name];
      expect(allowed, `${pkg.name} has no entry in ALLOWED`).toBeDefined();
      expect(internal.filter((name) => !allowed?.includes(name))).toEqual([]);
    });
  }
});
