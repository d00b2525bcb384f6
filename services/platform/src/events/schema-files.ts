import path from 'node:path';
import { REPO_ROOT } from '../repository.ts';

export { REPO_ROOT };
/** One JSON Schema per event, named `<event name>.json`. */
export const SCHEMAS_DIR = path.join(REPO_ROOT, 'schemas/events');
/** One valid payload per event, named like its schema: documentation and test data. */
export const EXAMPLES_DIR = path.join(REPO_ROOT, 'schemas/examples');
/** The topic registry document. */
export const REGISTRY_PATH = path.join(REPO_ROOT, 'schemas/topics.md');

/** A path for messages: relative to the repository when inside it. */
export function displayPath(file: string): string {
  const relative = path.relative(REPO_ROOT, file);
  return relative.startsWith('..') ? file : relative;
}

/** The schema with every local `#/$defs/…` reference replaced by its definition, and no `$defs`. */
export function inlineRefs(schema: Record<string, unknown>): Record<string, unknown> {
  const defs = (schema.$defs ?? {}) as Record<string, unknown>;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== 'object') return node;
    const { $ref, $defs: _defs, ...rest } = node as Record<string, unknown>;
    const own = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inline(value)]));
    if ($ref === undefined) return own;
    const target = typeof $ref === 'string' && $ref.startsWith('#/$defs/') ? defs[$ref.slice('#/$defs/'.length)] : undefined;
    if (target === undefined) throw new Error(`unsupported $ref ${String($ref)}: only local #/$defs/ references are`);
    return { ...(inline(target) as object), ...own };
  };
  return inline(schema) as Record<string, unknown>;
}
