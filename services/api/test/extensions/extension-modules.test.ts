// The modules extension manifests name, loaded as the api loads them at boot (their files on disk, imported).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { masterKeyring, type DiscoveredExtension, type ExtensionManifest } from '@shop/platform';
import { coreStorageRegistry } from '@shop/platform/storage';
import { loadApiExtensions } from '../../src/extensions/api-extensions.ts';

let base: string;
const masterKeys = masterKeyring(Buffer.alloc(32, 7));

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'extension-modules-'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** An extension folder holding `files`, discovered with `manifest`. */
async function extension(manifest: ExtensionManifest, files: Record<string, string>): Promise<DiscoveredExtension> {
  const dir = path.join(base, `${manifest.id}-${Math.random().toString(36).slice(2)}`);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return { id: manifest.id, version: '1.0.0', packageName: `@test/${manifest.id}`, dir, source: 'in-tree', manifest };
}

const REGISTER_MEMORY = `export function register(registry) { registry.register({ name: 'memory', create: () => { throw new Error('not built here'); } }); }`;

describe("loading extensions' modules", () => {
  it("registers the storage providers after the core's local one, in discovery order", async () => {
    const memory = await extension(
      { id: 'memory-storage', storageProviders: [{ name: 'memory', module: './src/index.js' }] },
      { 'src/index.js': REGISTER_MEMORY },
    );
    const { storage, listeners, areas } = await loadApiExtensions([memory], masterKeys);
    expect([listeners, areas]).toEqual([[], []]);
    const registry = coreStorageRegistry();
    for (const register of storage) register(registry);
    expect(registry.names()).toEqual(['local', 'memory']);
  });

  it("gives a provider module's register the extension's context, with the configuration its config module read", async () => {
    const registerNamed = `export function register(registry, { config }) { registry.register({ name: config.providerName, create: () => { throw new Error('not built here'); } }); }`;
    const configured = {
      ...(await extension(
        { id: 'named-storage', storageProviders: [{ name: 'named', module: './src/index.js' }] },
        { 'src/index.js': registerNamed },
      )),
      config: { providerName: 'named' },
    };
    const registry = coreStorageRegistry();
    for (const register of (await loadApiExtensions([configured], masterKeys)).storage) register(registry);
    expect(registry.names()).toEqual(['local', 'named']);
  });

  it('refuses a provider module that registers another name than its manifest gives', async () => {
    const misnamed = await extension(
      { id: 'misnamed', storageProviders: [{ name: 'disk', module: './src/index.js' }] },
      { 'src/index.js': REGISTER_MEMORY },
    );
    const [register] = (await loadApiExtensions([misnamed], masterKeys)).storage;
    expect(() => register?.(coreStorageRegistry())).toThrow(
      'extension misnamed: shop.storageProviders[0]: ./src/index.js registered no provider named "disk"',
    );
  });

  it.each([
    [
      { 'src/listeners.js': 'export const handlers = [];' },
      'extension notes: shop.listeners: ./src/listeners.js does not export "listeners"',
    ],
    [
      { 'src/listeners.js': "export const listeners = [{ name: 'status', event: 'order.status_changed', handle: async () => {} }];" },
      'extension notes: shop.listeners: listeners[0] needs a name starting with "notes."',
    ],
    [
      { 'src/listeners.js': "export const listeners = [{ name: 'notes.x', event: 'order.shipped', handle: async () => {} }];" },
      'extension notes: shop.listeners: listeners[0] listens to order.shipped, which is not an event of the catalogue',
    ],
    [{}, 'extension notes: shop.listeners: ./src/listeners.js could not be loaded'],
  ])('refuses listeners it cannot run, naming the extension and the field (%j)', async (files, message) => {
    const notes = await extension({ id: 'notes', listeners: './src/listeners.js' }, files);
    await expect(loadApiExtensions([notes], masterKeys)).rejects.toThrow(message);
  });

  it("calls a listeners function with the extension's context and takes the list it returns", async () => {
    const notes = await extension(
      { id: 'notes', listeners: './src/listeners.js' },
      {
        'src/listeners.js':
          "export const listeners = ({ id }) => [{ name: `${id}.greet`, event: 'order.status_changed', handle: async () => {} }];",
      },
    );
    expect((await loadApiExtensions([notes], masterKeys)).listeners.map((listener) => listener.name)).toEqual(['notes.greet']);
  });
});
