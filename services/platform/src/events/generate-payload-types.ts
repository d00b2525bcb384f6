/**
 * Writes payloads.generated.ts from schemas/events/*.json, so emitting an unknown event or a wrong
 * payload shape is a compile error. Run `npm run events:generate` after changing a schema;
 * `npm run check:events` fails while the file is stale.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { inlineRefs, SCHEMAS_DIR } from './schema-files.ts';

export const GENERATED_FILE = path.join(import.meta.dirname, 'payloads.generated.ts');

/** `shop.orders.placed.v1` -> `OrdersPlacedV1`, `cart.item_added` -> `CartItemAdded`. */
export function payloadTypeName(eventName: string): string {
  return eventName
    .replace(/^shop\./, '')
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** Titles and ids below the root would each become a named type, declared again by every schema sharing it. */
function untitled(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(untitled);
  if (node === null || typeof node !== 'object') return node;
  const { $id: _id, $schema: _schema, title: _title, ...rest } = node as Record<string, unknown>;
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, untitled(value)]));
}

async function renderOne(eventName: string, schema: Record<string, unknown>): Promise<string> {
  const type = payloadTypeName(eventName);
  const root = {
    ...(untitled(inlineRefs(schema)) as JSONSchema),
    title: type,
    description: typeof schema.title === 'string' ? schema.title : undefined,
  };
  const source = await compile(root, type, { bannerComment: '', additionalProperties: false, ignoreMinAndMaxItems: true });
  return source.trim();
}

/** The generated module's text, from the schema files in `schemasDir` as they are now. */
export async function renderPayloadTypes(schemasDir: string = SCHEMAS_DIR): Promise<string> {
  const names = (await readdir(schemasDir))
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
  const parts = ['// Generated from schemas/events by generate-payload-types.ts (npm run events:generate). Do not edit.', ''];
  for (const name of names) {
    const schema = JSON.parse(await readFile(path.join(schemasDir, `${name}.json`), 'utf8')) as Record<string, unknown>;
    parts.push(await renderOne(name, schema), '');
  }
  parts.push(
    '/** Every event by name: broker topics and in-process events. */',
    'export interface EventPayloads {',
    ...names.map((name) => `  '${name}': ${payloadTypeName(name)};`),
    '}',
    '',
  );
  return parts.join('\n');
}

if (import.meta.main) {
  await writeFile(GENERATED_FILE, await renderPayloadTypes());
  process.stdout.write(`wrote ${path.relative(process.cwd(), GENERATED_FILE)}\n`);
}
