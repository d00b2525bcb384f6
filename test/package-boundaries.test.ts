// A package reaches another only through a reference and the other's `exports`. The compiler holds most of
// it: each package is a TypeScript project (tsconfig.json) that references the packages its package.json
// depends on, and `npm run typecheck` (tsc -b) refuses a file of a package not referenced, by its name or by
// a path. By its name only thanks to tsconfig.base.json's paths, a copy of the exports: resolved through
// node_modules, a workspace package is an external library to the compiler, referenced or not. A bare path
// into a package (@shop/domain/src/...) finds no `exports` entry. A relative path into a referenced
// package's files compiles, so the lint (import-x/no-relative-packages) refuses that one.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly exports?: Record<string, string>;
}

interface ProjectConfig {
  readonly references?: readonly { readonly path: string }[];
}

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(path.join(ROOT, file), 'utf8')) as T;
/** A tsconfig file, which may hold comments. */
const readConfig = async <T>(file: string): Promise<T> =>
  ts.parseConfigFileTextToJson(file, await readFile(path.join(ROOT, file), 'utf8')).config as T;

const { workspaces } = await readJson<{ workspaces: string[] }>('package.json');
const manifests = new Map(
  await Promise.all(workspaces.map(async (dir) => [dir, await readJson<Manifest>(`${dir}/package.json`)] as const)),
);
const dirOf = new Map([...manifests].map(([dir, manifest]) => [manifest.name, dir]));

/** The folders (relative to the repository) of the projects a tsconfig file references. */
async function referencedDirs(config: string): Promise<string[]> {
  const { references = [] } = await readConfig<ProjectConfig>(config);
  return references.map((reference) => path.relative(ROOT, path.resolve(ROOT, path.dirname(config), reference.path))).sort();
}

describe('each package is a project referencing what it depends on', () => {
  for (const [dir, manifest] of manifests) {
    it(`${dir}/tsconfig.json references the @shop packages of its package.json, and only those`, async () => {
      const dependencies = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })
        .filter((name) => name.startsWith('@shop/'))
        .map((name) => dirOf.get(name) ?? name);
      expect(await referencedDirs(`${dir}/tsconfig.json`)).toEqual(dependencies.sort());
    });
  }

  it("tsconfig.base.json's paths are the packages' exports, file for file", async () => {
    const { compilerOptions } = await readConfig<{ compilerOptions: { paths: Record<string, string[]> } }>('tsconfig.base.json');
    const exported = [...manifests].flatMap(([dir, manifest]) =>
      Object.entries(manifest.exports ?? {}).map(([subpath, file]) => [
        `${manifest.name}${subpath.slice(1)}`,
        [`./${path.posix.join(dir, file)}`],
      ]),
    );
    expect(compilerOptions.paths).toEqual(Object.fromEntries(exported));
  });

  it('the root tsconfig.json builds every package and the project of everything else', async () => {
    expect(await referencedDirs('tsconfig.json')).toEqual(expect.arrayContaining([...workspaces, 'tsconfig.repo.json']));
  });
});

interface Compiled {
  /** The error codes (TS6307...) tsc gave the fixture's file. */
  readonly errors: string[];
  readonly output: string;
}

/**
 * Builds (tsc -b) a fixture project that stands for `dir`: the repository's compiler options, the references
 * of `dir`/tsconfig.json, and one source file, `code` of the way up to the repository's root. The fixture
 * sits in the build folder (.tsbuild/), inside the repository, so its imports resolve as a package's do.
 */
async function compileAs(dir: string, code: (up: string) => string): Promise<Compiled> {
  await mkdir(path.join(ROOT, '.tsbuild'), { recursive: true });
  const fixture = await mkdtemp(path.join(ROOT, '.tsbuild', 'package-boundaries-'));
  try {
    const file = path.join(fixture, 'src', 'probe.ts');
    await mkdir(path.dirname(file));
    await writeFile(file, code(path.relative(path.dirname(file), ROOT)));
    const references = (await referencedDirs(`${dir}/tsconfig.json`)).map((referenced) => ({ path: path.join(ROOT, referenced) }));
    const config = { extends: path.join(ROOT, 'tsconfig.base.json'), compilerOptions: { outDir: 'out' }, include: ['src'], references };
    await writeFile(path.join(fixture, 'tsconfig.json'), JSON.stringify(config));
    const output = await promisify(execFile)(process.execPath, [TSC, '-b', fixture], { cwd: ROOT }).then(
      ({ stdout }) => stdout,
      (failure: { stdout?: string }) => failure.stdout ?? String(failure),
    );
    const errors = [...output.matchAll(/^(.+?)\(\d+,\d+\): error (TS\d+)/gm)]
      .filter(([, at = '']) => path.resolve(ROOT, at) === file)
      .map(([, , code = '']) => code);
    return { errors, output };
  } finally {
    await rm(fixture, { recursive: true, force: true });
  }
}

describe('the compiler refuses a package not referenced', () => {
  const asPlatform = async (code: (up: string) => string) => compileAs('services/platform', code);

  it('refuses the platform importing the domain by its name (TS6307)', async () => {
    const { errors, output } = await asPlatform(
      () => `import { DomainError } from '@shop/domain/kernel';\nexport const used = DomainError;\n`,
    );
    expect(errors, output).toEqual(['TS6307']);
  }, 180_000);

  it('refuses the platform importing a file of the domain by a relative path (TS6307)', async () => {
    const { errors, output } = await asPlatform(
      // Joined, so test/domain-modules.test.ts, which reads this file's import-like strings, does not take the fixture for an import.
      (up) =>
        `import { DomainError } from '${[up, 'services/domain', 'src/kernel/domain-error.ts'].join('/')}';\nexport const used = DomainError;\n`,
    );
    expect(errors, output).toEqual(['TS6307']);
  }, 180_000);

  it('refuses a bare path into a referenced package, which its exports do not list (TS2307)', async () => {
    const { errors, output } = await asPlatform(
      () => `import { isProcessAlive } from '@shop/runtime/src/process-alive.ts';\nexport const used = isProcessAlive;\n`,
    );
    expect(errors, output).toEqual(['TS2307']);
  }, 180_000);

  it('compiles a referenced package by its name, and (the lint refuses it) by a relative path to its file', async () => {
    const { errors, output } = await asPlatform(
      (up) =>
        `import { isProcessAlive } from '@shop/runtime';\n` +
        `import { isProcessAlive as alive } from '${up}/services/runtime/src/process-alive.ts';\n` +
        `export const used = [isProcessAlive, alive];\n`,
    );
    expect(errors, output).toEqual([]);
    expect(output).toBe('');
  }, 180_000);
});

describe('the lint refuses a relative path into another package', () => {
  const eslint = new ESLint({ cwd: ROOT });

  async function refused(code: string, file: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return (result?.messages ?? [])
      .filter((message) => message.ruleId === 'import-x/no-relative-packages')
      .map((message) => message.message);
  }

  const inApi = 'services/api/src/orders/resolvers.ts';

  it("refuses an api file importing a platform file by a relative path, and names the package's import", async () => {
    const messages = await refused(
      `import { loadConfig } from '../../../platform/src/index.ts';\nexport const used = loadConfig;\n`,
      inApi,
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('@shop/platform');
  }, 60_000);

  it('accepts the same import by the package name, and a relative path inside the package', async () => {
    const code = `import { loadConfig } from '@shop/platform';\nimport { iso } from '../graphql/iso.ts';\nexport const used = [loadConfig, iso];\n`;
    expect(await refused(code, inApi)).toEqual([]);
  }, 60_000);
});
