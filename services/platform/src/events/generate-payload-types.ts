/**
 * Writes payloads.generated.ts from schemas/events/*.json, so emitting an event with the wrong
 * payload shape is a compile error. `npm run events:generate`; check:events fails when it is stale.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';

export const SCHEMAS_DIR = path.resolve(import.meta.dirname, '../../../../schemas/events');
export const GENERATED_FILE = path.join(import.meta.dirname, 'payloads.generated.ts');

function typeName(eventName: string): string {
  return eventName
    .replace(/^shop\./, '')
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** The generated module's text, from the schema files as they are now. */
export async function renderPayloadTypes(): Promise<string> {
  const files = (await readdir(SCHEMAS_DIR)).filter((file) => file.endsWith('.json')).sort();
  const parts = ['// Generated from schemas/events by generate-payload-types.ts. Do not edit.', ''];
  const entries: string[] = [];
  for (const file of files) {
    const name = file.slice(0, -'.json'.length);
    const schema = JSON.parse(await readFile(path.join(SCHEMAS_DIR, file), 'utf8')) as JSONSchema;
    const type = typeName(name);
    const source = await compile({ ...schema, title: type }, type, { bannerComment: '', additionalProperties: false, ignoreMinAndMaxItems: true });
    parts.push(source.trim(), '');
    entries.push(`  '${name}': ${type};`);
  }
  parts.push('/** Every event by name: topics and in-process events. */', 'export interface EventPayloads {', ...entries, '}', '');
  return parts.join('\n');
}

if (import.meta.main) {
  await writeFile(GENERATED_FILE, await renderPayloadTypes());
  process.stdout.write(`wrote ${path.relative(process.cwd(), GENERATED_FILE)}\n`);
}
