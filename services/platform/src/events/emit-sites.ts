import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

export interface EmitSite {
  readonly file: string;
  /** Where the name argument starts. */
  readonly line: number;
  /** The event name, or undefined when the call does not name it with a string literal. */
  readonly name: string | undefined;
}

/** Fixtures hold deliberately bad producers for the gate's own tests. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'generated', 'dist', 'fixtures']);
const SOURCE_FILE = /(?<!\.d)\.[cm]?tsx?$/;

async function sourceFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(root, entry.name);
      if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) ? [] : sourceFiles(full);
      return SOURCE_FILE.test(entry.name) ? [full] : [];
    }),
  );
  return nested.flat();
}

function unwrap(expression: ts.Expression): ts.Expression {
  let inner = expression;
  while (ts.isAsExpression(inner) || ts.isSatisfiesExpression(inner) || ts.isParenthesizedExpression(inner)) inner = inner.expression;
  return inner;
}

/** `emit(tx, name, payload)` or `x.emit(tx, name, payload)`; a string first argument is Node's EventEmitter. */
function isEmitCall(node: ts.Node): node is ts.CallExpression {
  if (!ts.isCallExpression(node) || node.arguments.length !== 3) return false;
  const callee = node.expression;
  const named =
    (ts.isIdentifier(callee) && callee.text === 'emit') || (ts.isPropertyAccessExpression(callee) && callee.name.text === 'emit');
  const first = node.arguments[0];
  return named && first !== undefined && !ts.isStringLiteralLike(unwrap(first));
}

/** `const NAME = 'literal'` declarations of the file, so `emit(tx, TOPIC, …)` still names its event statically. */
function constantStrings(source: ts.SourceFile): Map<string, string | undefined> {
  const constants = new Map<string, string | undefined>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclarationList(node) && (node.flags & ts.NodeFlags.Const) !== 0) {
      for (const declaration of node.declarations) {
        if (!ts.isIdentifier(declaration.name) || declaration.initializer === undefined) continue;
        const value = unwrap(declaration.initializer);
        const text = ts.isStringLiteralLike(value) ? value.text : undefined;
        // A name declared twice (in different scopes) is ambiguous without a type checker.
        constants.set(declaration.name.text, constants.has(declaration.name.text) ? undefined : text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return constants;
}

function literalName(argument: ts.Expression, constants: ReadonlyMap<string, string | undefined>): string | undefined {
  const value = unwrap(argument);
  if (ts.isStringLiteralLike(value)) return value.text;
  return ts.isIdentifier(value) ? constants.get(value.text) : undefined;
}

/** Every emit call in the TypeScript sources below the roots, tests included, fixtures excluded. */
export async function findEmitSites(roots: readonly string[]): Promise<EmitSite[]> {
  const files = (await Promise.all(roots.map(sourceFiles))).flat().sort();
  const sites: EmitSite[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const constants = constantStrings(source);
    const visit = (node: ts.Node): void => {
      if (isEmitCall(node)) {
        const nameArgument = node.arguments[1] as ts.Expression;
        const line = source.getLineAndCharacterOfPosition(nameArgument.getStart()).line + 1;
        sites.push({ file, line, name: literalName(nameArgument, constants) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return sites;
}
