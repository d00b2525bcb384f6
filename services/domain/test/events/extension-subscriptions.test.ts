// The consumerHandlers modules of extension manifests, loaded from files as the consumer and the api load them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { masterKeyring, type DiscoveredExtension } from '@shop/platform';
import { extensionSubscriptions } from '../../src/events/extension-subscriptions.ts';

let dir: string;
const masterKeys = masterKeyring(Buffer.alloc(32, 7));

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'extension-subscriptions-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function withHandlers(source: string): Promise<DiscoveredExtension> {
  const file = `handlers-${Math.random().toString(36).slice(2)}.js`;
  await writeFile(path.join(dir, file), source);
  return {
    id: 'leads',
    version: '1.0.0',
    packageName: '@test/leads',
    dir,
    source: 'dev',
    manifest: { id: 'leads', consumerHandlers: `./${file}` },
  };
}

it('returns the handlers as topic subscriptions', async () => {
  const extension = await withHandlers(
    "export const consumerHandlers = [{ name: 'leads.log', topics: ['shop.leads.created.v1'], handle: async () => {} }];",
  );
  expect((await extensionSubscriptions([extension], masterKeys)).map(({ name, topics }) => ({ name, topics }))).toEqual([
    { name: 'leads.log', topics: ['shop.leads.created.v1'] },
  ]);
});

it.each([
  [
    "export const consumerHandlers = [{ name: 'log', topics: ['shop.leads.created.v1'], handle: async () => {} }];",
    'shop.consumerHandlers: consumerHandlers[0] needs a name starting with "leads."',
  ],
  [
    "export const consumerHandlers = [{ name: 'leads.log', topics: ['shop.leads.lost.v1'], handle: async () => {} }];",
    'shop.consumerHandlers: consumerHandlers[0] reads shop.leads.lost.v1, which is not a topic of the catalogue',
  ],
  [
    "export const consumerHandlers = [{ name: 'leads.log', topics: [], handle: async () => {} }];",
    'shop.consumerHandlers: consumerHandlers[0] needs topics, a list of topic names',
  ],
  ["export const consumerHandlers = { name: 'leads.log' };", 'shop.consumerHandlers: "consumerHandlers" must be a list'],
])('refuses handlers it cannot run, naming the extension and the field (%s)', async (source, message) => {
  await expect(extensionSubscriptions([await withHandlers(source)], masterKeys)).rejects.toThrow(`extension leads: ${message}`);
});

it("calls a consumerHandlers function with the extension's context and takes the list it returns", async () => {
  const extension = await withHandlers(
    "export const consumerHandlers = ({ id }) => [{ name: `${id}.log`, topics: ['shop.leads.created.v1'], handle: async () => {} }];",
  );
  expect((await extensionSubscriptions([extension], masterKeys)).map(({ name }) => name)).toEqual(['leads.log']);
});
