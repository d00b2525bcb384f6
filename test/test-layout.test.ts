// Where test code goes. A .ts file in a test folder is a test (*.test.ts, or *.type-check.ts, which
// `npm run typecheck` runs: it holds @ts-expect-error cases), a helper the tests share in
// a support/ folder, or a program or input a test hands to the code under test in a fixtures/ folder;
// the servers every test runs on are test/infra/. The api's tests sit in the folder of their area, the domain's in the folder of their module.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const SKIPPED = new Set(['node_modules', '.git', '.data', 'dist', 'generated', '.tsbuild']);

async function typeScriptFiles(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const file = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : typeScriptFiles(file);
      return file.endsWith('.ts') ? [file] : [];
    }),
  );
  return nested.flat();
}

/** The folders of a path below its first `test` folder, or undefined outside any test folder. */
function foldersInTest(file: string): string[] | undefined {
  const folders = file.split('/').slice(0, -1);
  const test = folders.indexOf('test');
  return test === -1 ? undefined : folders.slice(test + 1);
}

function placed(file: string): boolean {
  const folders = foldersInTest(file);
  if (folders === undefined || file.endsWith('.test.ts') || file.endsWith('.type-check.ts')) return true;
  return folders.includes('support') || folders.includes('fixtures') || file.startsWith('test/infra/');
}

describe('test folders', () => {
  it('hold tests, support/ helpers and fixtures/ only', async () => {
    const files = await typeScriptFiles('.');
    expect(files.filter((file) => foldersInTest(file) !== undefined).length).toBeGreaterThan(100);
    expect(files.filter((file) => !placed(file))).toEqual([]);
  });

  it("put each api test in the folder of its area (services/api/src/<area>/) or at the top for the process's own files", async () => {
    const areas = new Set(
      (await readdir(path.join(ROOT, 'services/api/src'), { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    );
    const tests = (await typeScriptFiles('services/api/test')).filter(
      (file) => file.endsWith('.test.ts') || file.endsWith('.type-check.ts'),
    );
    const misplaced = tests.filter((file) => {
      const [folder, ...rest] = foldersInTest(file) ?? [];
      return folder !== undefined && (!areas.has(folder) || rest.length > 0);
    });
    expect(misplaced).toEqual([]);
  });

  it('put each domain test in the folder of its module (services/domain/src/<module>/)', async () => {
    const modules = new Set(
      (await readdir(path.join(ROOT, 'services/domain/src'), { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    );
    const tests = (await typeScriptFiles('services/domain/test')).filter((file) => file.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(30);
    expect(tests.filter((file) => !modules.has(foldersInTest(file)?.[0] ?? ''))).toEqual([]);
  });
});
