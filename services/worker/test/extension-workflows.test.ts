// The extensions' workflows as the worker loads them before it bundles: their modules on disk, imported
// to list their workflow types, their activities, and the names they must not take from anyone else.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { masterKeyring, type DiscoveredExtension, type ExtensionManifest } from '@shop/platform';
import { loadExtensionWorkflows, WorkflowDeclarationError } from '../src/extension-workflows.ts';

let base: string;
const options = {
  masterKeys: masterKeyring(Buffer.alloc(32, 7)),
  // Loading only builds the activities; none runs here.
  transaction: () => Promise.reject(new Error('no transaction while loading')),
  coreActivities: ['workflowSettings', 'deleteExpiredCarts'],
};

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'extension-workflows-'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const WORKFLOWS = 'export async function DigestWorkflow() { return 1; }\nexport const DIGEST_EVERY = 60;\n';
const ACTIVITIES = 'export const activities = ({ id }) => ({ [`${id.replace(/-/g, "")}Digest`]: async () => 1 });\n';

async function extension(manifest: ExtensionManifest, files: Record<string, string>): Promise<DiscoveredExtension> {
  const dir = path.join(base, `${manifest.id}-${Math.random().toString(36).slice(2)}`);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return { id: manifest.id, version: '1.0.0', packageName: `@test/${manifest.id}`, dir, source: 'dev', manifest };
}

it('lists the module, the activities its function gives and the schedules, run as the core ones are', async () => {
  const digests = await extension(
    {
      id: 'digests',
      workflows: {
        module: './workflows.js',
        activities: './activities.js',
        schedules: [{ id: 'digests.hourly', workflowType: 'DigestWorkflow', everyMinutes: 60, description: 'Digests' }],
      },
    },
    { 'workflows.js': WORKFLOWS, 'activities.js': ACTIVITIES },
  );
  const loaded = await loadExtensionWorkflows([digests], options);
  expect(loaded.modules).toEqual([path.join(digests.dir, 'workflows.js')]);
  expect(Object.keys(loaded.activities)).toEqual(['digestsDigest']);
  expect(loaded.schedules).toEqual([
    {
      scheduleId: 'digests.hourly',
      workflowType: 'DigestWorkflow',
      everyMs: 3_600_000,
      overlap: 'skip',
      catchupWindowMs: 3_600_000,
      description: 'Digests',
    },
  ]);
});

it.each([
  [
    { module: './workflows.js', activities: './core-name.js' },
    'extension digests: shop.workflows.activities: the activity workflowSettings is taken by the core; rename it',
  ],
  [
    {
      module: './workflows.js',
      schedules: [{ id: 'digests.daily', workflowType: 'DailyWorkflow', everyMinutes: 1440, description: 'Daily' }],
    },
    'extension digests: shop.workflows.schedules[0].workflowType DailyWorkflow is not exported by ./workflows.js',
  ],
  [{ module: './constants.js' }, 'extension digests: shop.workflows.module: ./constants.js exports no workflow function'],
])('refuses what the worker could not run unambiguously, naming the extension and the field (%j)', async (workflows, message) => {
  const digests = await extension(
    { id: 'digests', workflows },
    {
      'workflows.js': WORKFLOWS,
      'core-name.js': 'export const activities = { workflowSettings: async () => ({}) };\n',
      'constants.js': 'export const EVERY = 60;\n',
    },
  );
  const refused = loadExtensionWorkflows([digests], options);
  await expect(refused).rejects.toThrow(message);
  await expect(refused).rejects.toBeInstanceOf(WorkflowDeclarationError);
});

it('refuses an activity name an earlier extension took, naming it', async () => {
  const files = { 'workflows.js': WORKFLOWS, 'activities.js': 'export const activities = { digest: async () => 1 };\n' };
  const first = await extension({ id: 'first', workflows: { module: './workflows.js', activities: './activities.js' } }, files);
  const second = await extension(
    { id: 'second', workflows: { module: './other.js', activities: './activities.js' } },
    { ...files, 'other.js': 'export async function OtherWorkflow() {}\n' },
  );
  await expect(loadExtensionWorkflows([first, second], options)).rejects.toThrow(
    'extension second: shop.workflows.activities: the activity digest is taken by extension first; rename it',
  );
});
