import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** docs/architecture.md lists the tree as it is: each table is checked against the folders it describes. */

const root = path.resolve(import.meta.dirname, '..');
const doc = await readFile(path.join(root, 'docs/architecture.md'), 'utf8');

/** The rows of the markdown table under `heading`: each row's cells, the first one's back-quoted names split out. */
function tableUnder(heading: string): { names: string[]; cells: string[] }[] {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no heading ${heading}`);
  const rows: { names: string[]; cells: string[] }[] = [];
  let inTable = false;
  for (const line of doc.slice(start + heading.length + 2).split('\n')) {
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (/^-+$/.test(cells[0] ?? '') || (rows.length === 0 && !(cells[0] ?? '').includes('`'))) continue;
    rows.push({ names: [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map((match) => (match[1] ?? '').replace(/\/$/, '')), cells });
  }
  return rows;
}

const folders = async (dir: string) =>
  (await readdir(path.join(root, dir), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

describe('docs/architecture.md', () => {
  it('lists every domain module with the modules it may import, as services/domain/modules.json declares', async () => {
    const declared = JSON.parse(await readFile(path.join(root, 'services/domain/modules.json'), 'utf8')) as Record<string, string[]>;
    const rows = tableUnder('## The domain: modules and flows');
    expect(rows.flatMap((row) => row.names).sort()).toEqual(await folders('services/domain/src'));
    for (const row of rows) {
      const imports = (row.cells[2] ?? '') === 'nothing' ? [] : (row.cells[2] ?? '').split(',').map((name) => name.trim());
      expect(imports.sort(), `what docs/architecture.md says ${row.names[0]} may import`).toEqual(
        [...(declared[row.names[0] ?? ''] ?? [])].sort(),
      );
    }
  });

  it("keeps each module's tables in prisma/schema/<module>.prisma", async () => {
    const modules = await folders('services/domain/src');
    const files = (await readdir(path.join(root, 'prisma/schema'))).map((file) => file.replace(/\.prisma$/, ''));
    expect(files.filter((file) => !['schema', 'platform', ...modules].includes(file))).toEqual([]);
  });

  it('lists every flow', async () => {
    const flows = (await readdir(path.join(root, 'services/domain/src/flows')))
      .filter((file) => !['index.ts', 'steps.ts'].includes(file))
      .sort();
    expect(
      tableUnder('### Flows')
        .flatMap((row) => row.names)
        .sort(),
    ).toEqual(flows);
  });

  it('lists every folder of the api', async () => {
    expect(
      tableUnder('## The api by area')
        .flatMap((row) => row.names)
        .sort(),
    ).toEqual(await folders('services/api/src'));
  });
});
