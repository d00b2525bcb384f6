// An extension's own variables: declared by the module of its `shop.config`, read and checked as the
// platform's processes do at start (configureExtensions), and handed to its code in its context.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@shop/runtime';
import type { DiscoveredExtension } from '../../src/extensions/discovery.ts';
import { configureExtensions, loadExtensionConfig, type ExtensionConfig } from '../../src/extensions/extension-config.ts';
import { extensionContext } from '../../src/extensions/extension-settings.ts';
import { masterKeyring } from '../../src/secrets/keyring.ts';

let base: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'extension-config-'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** An extension whose `shop.config` module is `source` (none when undefined). */
async function extension(id: string, source?: string): Promise<DiscoveredExtension> {
  const dir = path.join(base, id);
  await mkdir(dir, { recursive: true });
  if (source !== undefined) await writeFile(path.join(dir, 'config.js'), source);
  return {
    id,
    version: '1.0.0',
    packageName: `@test/${id}`,
    dir,
    source: 'in-tree',
    manifest: { id, ...(source === undefined ? {} : { config: './config.js' }) },
  };
}

const ACME_CONFIG = `export const config = {
  variables: [
    { name: 'ACME_URL', description: 'Where the Acme API answers' },
    { name: 'ACME_RETRIES', description: 'Attempts per call', defaultValue: '3' },
  ],
  read: (read) => ({ url: read.url('ACME_URL', ['https']), retries: read.integer('ACME_RETRIES', 3, 0, 10) }),
};`;

describe("an extension's configuration", () => {
  it('is read from the environment at start and given to its code in its context; an extension without one passes as it is', async () => {
    const [acme, plain] = await Promise.all([extension('acme', ACME_CONFIG), extension('plain')]);
    const { extensions, problems } = await configureExtensions([acme, plain], {
      ACME_URL: 'https://acme.example',
      ACME_RETRIES: '5',
      UNRELATED: 'x',
    });
    expect(problems).toEqual([]);
    expect(extensions.map((configured) => configured.config)).toEqual([{ url: 'https://acme.example', retries: 5 }, undefined]);
    expect(extensionContext(extensions[0] as DiscoveredExtension, masterKeyring(Buffer.alloc(32, 1))).config).toEqual({
      url: 'https://acme.example',
      retries: 5,
    });
  });

  it('answers every problem as one line naming the extension and the variable', async () => {
    const { problems } = await configureExtensions([await extension('acme-bad', ACME_CONFIG)], {
      ACME_URL: 'http://acme.example',
      ACME_RETRIES: '99',
    });
    expect(problems).toEqual([
      'extension acme-bad: ACME_URL: must use https:// (got http://)',
      'extension acme-bad: ACME_RETRIES: must be a whole number from 0 to 10 (got "99")',
    ]);
  });

  it('refuses a config module that reads a variable it does not declare', async () => {
    const sneaky = await extension('sneaky', `export const config = { variables: [], read: (read) => read.optional('DATABASE_URL') };`);
    await expect(configureExtensions([sneaky], {})).rejects.toThrow(
      "extension sneaky: shop.config: reads DATABASE_URL, which its config's variables do not declare",
    );
  });

  it('refuses a variable the core or another extension reads: each has one owner', async () => {
    const core = await extension(
      'takes-core',
      `export const config = { variables: [{ name: 'DATABASE_URL', description: 'mine' }], read: () => undefined };`,
    );
    await expect(configureExtensions([core], {})).rejects.toThrow(
      'extension takes-core: shop.config: DATABASE_URL is read by the core; an extension declares variables of its own',
    );
    const other = await extension(
      'takes-acme',
      `export const config = { variables: [{ name: 'ACME_URL', description: 'mine too' }], read: () => undefined };`,
    );
    await expect(configureExtensions([await extension('acme-first', ACME_CONFIG), other], {})).rejects.toThrow(
      'extension takes-acme: shop.config: ACME_URL is read by extension acme-first; an extension declares variables of its own',
    );
  });

  it.each([
    ['no-export', 'export const settings = {};', 'extension no-export: shop.config: ./config.js does not export "config"'],
    [
      'lower-case',
      "export const config = { variables: [{ name: 'acme_url', description: 'lower case' }], read: () => undefined };",
      'extension lower-case: shop.config: "config" of ./config.js must be',
    ],
    [
      'no-read',
      "export const config = { variables: [{ name: 'ACME_URL' }] };",
      'extension no-read: shop.config: "config" of ./config.js must be',
    ],
  ])('refuses a config module that does not export the declaration (%s)', async (id, source, message) => {
    await expect(configureExtensions([await extension(id, source)], {})).rejects.toThrow(message);
  });

  it("is read alone by the extension's own commands, a ConfigError naming each bad variable", () => {
    const declaration: ExtensionConfig<string | undefined> = {
      variables: [{ name: 'ACME_URL', description: 'Where the Acme API answers' }],
      read: (read) => read.url('ACME_URL', ['https']),
    };
    expect(loadExtensionConfig(declaration, { ACME_URL: 'https://acme.example' })).toBe('https://acme.example');
    expect(() => loadExtensionConfig(declaration, { ACME_URL: 'acme' })).toThrow(
      new ConfigError(['ACME_URL: must be a URL like https://host:port (got "acme")']),
    );
  });
});
