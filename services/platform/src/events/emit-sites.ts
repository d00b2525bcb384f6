import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

export interface EmitSite {
  readonly file: string;
  readonly line: number;
  /** The event name, or undefined when the call does not name it with a string literal. */
  readonly name: string | undefined;
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'generated', 'dist', 'test']);

async function sourceFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(root, entry.name);
      if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) ? [] : sourceFiles(full);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
    }),
  );
  return nested.flat();
}

function isEmitCall(node: ts.Node): node is ts.CallExpression {
  if (!ts.isCallExpression(node) || node.arguments.length !== 3) return false;
  const callee = node.expression;
  return (ts.isIdentifier(callee) && callee.text === 'emit') || (ts.isPropertyAccessExpression(callee) && callee.name.text === 'emit');
}

/** Every `emit(tx, name, payload)` call in the production sources below the roots (tests excluded). */
export async function findEmitSites(roots: readonly string[]): Promise<EmitSite[]> {
  const files = (await Promise.all(roots.map(sourceFiles))).flat();
  const sites: EmitSite[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (isEmitCall(node)) {
        const nameArgument = node.arguments[1];
        const literal = nameArgument !== undefined && ts.isStringLiteralLike(nameArgument) ? nameArgument.text : undefined;
        sites.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, name: literal });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return sites;
}
