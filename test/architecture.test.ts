import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { extensionVariables } from './support/extensions.ts';

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
  // A tool for development and tests, outside the production images: it speaks the platform's payment wire.
  '@shop/test-gateway': ['@shop/platform', '@shop/runtime'],
};

const root = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { workspaces: string[] };

async function manifest(
  dir: string,
): Promise<{ name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> }> {
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

/** The core's packages: none of them reads a variable an extension owns. */
const CORE_SOURCES = [
  'services/runtime',
  'services/platform',
  'services/domain',
  'services/api',
  'services/worker',
  'services/consumer',
].map((dir) => `${dir}/src`);

/** The files under `dir` (relative to the repository) that read one of the variables: as a string literal of its name, or a property (`env.S3_BUCKET`). */
async function filesReading(dir: string, variables: RegExp): Promise<string[]> {
  const files = (await readdir(new URL(`../${dir}`, import.meta.url), { recursive: true })).filter((file) => file.endsWith('.ts'));
  const texts = await Promise.all(
    files.map(async (file) => [file, await readFile(new URL(`../${dir}/${file}`, import.meta.url), 'utf8')] as const),
  );
  return texts.filter(([, text]) => variables.test(text)).map(([file]) => `${dir}/${file}`);
}

describe('configuration belongs to its owner', () => {
  it('the core reads no S3_* variable, nor any other an extension of extensions/ declares: the extension reads its own', async () => {
    const names = ['S3_[A-Z0-9_]*', ...(await extensionVariables()).map((variable) => variable.name)].join('|');
    const reads = new RegExp(`(['"\`])(?:${names})\\1|\\.(?:${names})\\b`);
    expect(["read.optional('S3_BUCKET')", 'process.env.S3_ENDPOINT', 'env["S3_SECRET_KEY"]'].filter((code) => !reads.test(code))).toEqual(
      [],
    );
    expect(await filesReading('extensions/s3-storage/src', reads)).toContain('extensions/s3-storage/src/config.ts');
    expect((await Promise.all(CORE_SOURCES.map((dir) => filesReading(dir, reads)))).flat()).toEqual([]);
  });
});
