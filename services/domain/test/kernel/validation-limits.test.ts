import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Limit, LIMITS } from '../../src/kernel/index.ts';

interface Column {
  readonly type: string;
  /** The @db native type (VarChar, Char, ...); undefined for a plain String, which is unbounded text. */
  readonly native: string | undefined;
  readonly width: number | undefined;
}

const PRISMA_DIR = fileURLToPath(new URL('../../../../prisma/', import.meta.url));

/** Every *.prisma under prisma/, so the schema may be one file or split into several. */
function schemaSources(): string[] {
  const files = readdirSync(PRISMA_DIR, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.prisma'));
  return files.map((file) => readFileSync(join(PRISMA_DIR, file), 'utf8'));
}

/** The columns of the models, keyed table.column by their database names (@@map, @map). */
function columnsOf(sources: readonly string[]): Map<string, Column> {
  const columns = new Map<string, Column>();
  for (const source of sources) {
    for (const [, model, body] of source.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
      const table = /@@map\("([^"]+)"\)/.exec(body as string)?.[1] ?? (model as string);
      for (const line of (body as string).split('\n').map((l) => l.trim())) {
        const field = /^(\w+)\s+(\w+)(?:\[\])?\??\s*(.*)$/.exec(line);
        if (field === null) continue;
        const [, name, type, attributes] = field as unknown as [string, string, string, string];
        const column = /@map\("([^"]+)"\)/.exec(attributes)?.[1] ?? name;
        const native = /@db\.(\w+)(?:\((\d+)\))?/.exec(attributes);
        columns.set(`${table}.${column}`, { type, native: native?.[1], width: native?.[2] === undefined ? undefined : Number(native[2]) });
      }
    }
  }
  return columns;
}

/** What is wrong between the limits and the columns they name, one line each. */
function problemsOf(limits: Readonly<Record<string, Limit>>, columns: ReadonlyMap<string, Column>): string[] {
  const problems: string[] = [];
  for (const [name, { max, columns: names, narrower }] of Object.entries(limits)) {
    let narrowerSomewhere = false;
    for (const columnName of names) {
      const column = columns.get(columnName);
      if (column === undefined) {
        problems.push(`${name}: no column ${columnName} in the schema`);
      } else if (column.type !== 'String' || (column.native !== undefined && column.native !== 'VarChar')) {
        problems.push(`${name}: ${columnName} is ${column.native ?? column.type}, not VarChar or text`);
      } else if (column.width === undefined || max < column.width) {
        narrowerSomewhere = true;
        if (narrower === undefined)
          problems.push(`${name}: ${max} is below what ${columnName} holds (${column.width ?? 'unbounded text'}) and no narrower says why`);
      } else if (max > column.width) {
        problems.push(`${name}: ${max} is more than ${columnName} holds (VarChar(${column.width}))`);
      }
    }
    if (narrower !== undefined && !narrowerSomewhere && problems.every((problem) => !problem.startsWith(`${name}:`))) {
      problems.push(`${name}: says it is narrower than its columns, but equals them`);
    }
  }
  return problems;
}

describe('the named length limits', () => {
  it('fit the columns they name in prisma/, equal to their width unless they say why not', () => {
    const columns = columnsOf(schemaSources());
    expect(columns.size).toBeGreaterThan(100);
    expect(problemsOf(LIMITS, columns)).toEqual([]);
  });

  it('fail when a column drifts from its limit, however the schema is split', () => {
    const products = 'model Product {\n  id   BigInt @id\n  name String @db.VarChar(250)\n  @@map("products")\n}\n';
    const lines = 'model OrderLine {\n  productName String @map("product_name") @db.VarChar(400)\n  @@map("order_lines")\n}\n';
    const columns = columnsOf([products, lines]);
    expect(problemsOf({ productName: LIMITS.productName }, columns)).toEqual([
      'productName: 300 is more than products.name holds (VarChar(250))',
      'productName: 300 is below what order_lines.product_name holds (400) and no narrower says why',
    ]);
    expect(problemsOf({ productName: { ...LIMITS.productName, narrower: 'why' } }, columns)).toEqual([
      'productName: 300 is more than products.name holds (VarChar(250))',
    ]);
    expect(problemsOf({ sku: { max: 100, columns: ['products.sku'] } }, columns)).toEqual(['sku: no column products.sku in the schema']);
    expect(problemsOf({ id: { max: 10, columns: ['products.id'] } }, columns)).toEqual(['id: products.id is BigInt, not VarChar or text']);
  });

  it('need a reason to be narrower than a column, and only while they are', () => {
    const columns = columnsOf([
      'model Product {\n  description String @default("")\n  name String @db.VarChar(300)\n  @@map("products")\n}\n',
    ]);
    expect(problemsOf({ description: { max: 10, columns: ['products.description'] } }, columns)).toEqual([
      'description: 10 is below what products.description holds (unbounded text) and no narrower says why',
    ]);
    expect(problemsOf({ description: { max: 10, columns: ['products.description'], narrower: 'why' } }, columns)).toEqual([]);
    expect(problemsOf({ name: { max: 300, columns: ['products.name'], narrower: 'stale' } }, columns)).toEqual([
      'name: says it is narrower than its columns, but equals them',
    ]);
  });
});
