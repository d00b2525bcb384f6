import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The domain is a set of modules (services/domain/src/<module>/), each with one entry (index.ts)
 * that is its whole public surface. services/domain/modules.json lists what each module may import;
 * eslint.config.js enforces the same list file by file, this test the whole: the list is acyclic,
 * matches the folders, the package's subpaths and the imports the code really makes.
 */

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'services/domain/src');
const declared = JSON.parse(await readFile(path.join(root, 'services/domain/modules.json'), 'utf8')) as Record<string, string[]>;

/** A cycle of the graph as a path that comes back to its start, or null. */
function findCycle(graph: Readonly<Record<string, readonly string[]>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...trail.slice(trail.indexOf(node)), node];
    state.set(node, 'open');
    trail.push(node);
    for (const next of graph[node] ?? []) {
      const cycle = visit(next);
      if (cycle !== null) return cycle;
    }
    trail.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of Object.keys(graph)) {
    const cycle = visit(node);
    if (cycle !== null) return cycle;
  }
  return null;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => path.join(entry.parentPath, entry.name));
}

const SPECIFIER = /(?:from|import)\s*\(?\s*'([^']+)'/g;
const specifiers = (text: string): string[] => [...text.matchAll(SPECIFIER)].map((match) => match[1] ?? '');

const modules = (await readdir(src, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('the domain module graph', () => {
  it('finds a cycle when there is one, and none in a tree', () => {
    expect(findCycle({ orders: ['payments'], payments: ['returns'], returns: ['orders'] })).toEqual([
      'orders',
      'payments',
      'returns',
      'orders',
    ]);
    expect(findCycle({ flows: ['orders', 'returns'], returns: ['orders'], orders: [] })).toBeNull();
  });

  it('is acyclic', () => {
    expect(findCycle(declared)).toBeNull();
  });

  it('lists every module folder, each with an entry, and nothing else', async () => {
    expect(Object.keys(declared).sort()).toEqual(modules);
    for (const name of modules)
      await expect(readFile(path.join(src, name, 'index.ts'), 'utf8'), `${name}/index.ts`).resolves.toBeTypeOf('string');
    expect(
      (await readdir(src, { withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name),
      'files outside any module',
    ).toEqual([]);
  });

  it('exports each module, and only modules, as a package subpath', async () => {
    const pkg = JSON.parse(await readFile(path.join(root, 'services/domain/package.json'), 'utf8')) as { exports: Record<string, string> };
    expect(pkg.exports).toEqual(Object.fromEntries(modules.map((name) => [`./${name}`, `./src/${name}/index.ts`])));
  });

  for (const name of Object.keys(declared)) {
    it(`${name} imports exactly the entries of the modules it declares`, async () => {
      const used = new Set<string>();
      for (const file of await sourceFiles(path.join(src, name))) {
        for (const specifier of specifiers(await readFile(file, 'utf8'))) {
          if (specifier.startsWith('@shop/domain'))
            throw new Error(`${path.relative(root, file)} imports its own package (${specifier}): use a relative path`);
          if (!specifier.startsWith('.')) continue;
          const target = path.relative(src, path.resolve(path.dirname(file), specifier)).split(path.sep);
          const other = target[0] ?? '';
          if (other === name) continue;
          expect(`${path.relative(root, file)} -> ${target.join('/')}`).toMatch(/ -> [a-z-]+\/index\.ts$/);
          used.add(other);
        }
      }
      expect([...used].sort(), `what ${name} imports vs services/domain/modules.json`).toEqual([...(declared[name] ?? [])].sort());
    });
  }
});

describe('outside the domain', () => {
  it('nothing reaches into a module past its entry', async () => {
    const roots = ['services', 'test', 'bench', 'extensions', 'operator', 'cdk8s'];
    const offenders: string[] = [];
    for (const dir of roots) {
      for (const file of await sourceFiles(path.join(root, dir))) {
        if (file.includes(`${path.sep}node_modules${path.sep}`) || file.startsWith(path.join(root, 'services/domain') + path.sep)) continue;
        const text = await readFile(file, 'utf8');
        offenders.push(
          ...specifiers(text)
            .filter((specifier) => /(^|\/)domain\/src\//.test(specifier))
            .map((specifier) => `${path.relative(root, file)}: ${specifier}`),
        );
      }
    }
    expect(offenders).toEqual([]);
  });
});
