import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { RegistryDocument } from './registry-document.ts';
import { displayPath, inlineRefs } from './schema-files.ts';
import { createSchemaCompiler } from './validator.ts';

/** Fields every payload carries; documented once at the top of the registry, not per event. */
const ENVELOPE = ['event_id', 'schema_version', 'occurred_at'];

type Schema = Record<string, unknown>;

/** `totals`, `totals.total`, `lines`, `lines[].sku`: every field below the root, as the registry names them. */
function fieldPaths(schema: Schema, prefix = ''): string[] {
  return Object.entries((schema.properties ?? {}) as Record<string, Schema>).flatMap(([key, property]) => {
    const field = `${prefix}${key}`;
    const items = property.items as Schema | undefined;
    if (property.properties !== undefined) return [field, ...fieldPaths(property, `${field}.`)];
    if (items?.properties !== undefined) return [field, ...fieldPaths(items, `${field}[].`)];
    return [field];
  });
}

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8'));
}

/** The problems of one registered event's schema file (which exists), its example and its field docs. */
async function checkEvent(name: string, registry: RegistryDocument, schemasDir: string, examplesDir: string): Promise<string[]> {
  const file = displayPath(path.join(schemasDir, `${name}.json`));
  const ajv = createSchemaCompiler();
  let schema: Schema;
  let validate: ValidateFunction;
  try {
    schema = (await readJson(path.join(schemasDir, `${name}.json`))) as Schema;
    validate = ajv.compile(schema);
    schema = inlineRefs(schema);
  } catch (error) {
    return [`${file}: not a valid JSON Schema: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  if (schema.$id !== name) problems.push(`${file}: $id is ${JSON.stringify(schema.$id)}, not the file name "${name}"`);
  const required = (schema.required ?? []) as string[];
  const missingEnvelope = ENVELOPE.filter((field) => !required.includes(field));
  if (missingEnvelope.length > 0) problems.push(`${file}: must require the envelope fields, missing ${missingEnvelope.join(', ')}`);

  const partitionKey = registry.topics.get(name);
  const keyType = ((schema.properties ?? {}) as Record<string, Schema>)[partitionKey ?? '']?.type;
  if (partitionKey !== undefined && (!required.includes(partitionKey) || keyType !== 'string')) {
    problems.push(`${file}: the partition key ${partitionKey} must be a required, non-null string field`);
  }

  const exampleFile = path.join(examplesDir, `${name}.json`);
  const example = await readJson(exampleFile).catch(() => undefined);
  if (example === undefined) problems.push(`${displayPath(exampleFile)}: missing or not JSON; every event keeps one valid example`);
  else if (!validate(example)) problems.push(`${displayPath(exampleFile)}: does not match its schema: ${ajv.errorsText(validate.errors)}`);

  const documented = registry.fieldDocs.get(name);
  if (documented === undefined) return [...problems, `${name}: the registry has no ### \`${name}\` section documenting its fields`];
  const fields = fieldPaths(schema).filter((field) => !ENVELOPE.includes(field));
  for (const field of fields.filter((candidate) => !documented.includes(candidate)))
    problems.push(`${name}: field ${field} is not documented in the registry`);
  for (const field of documented.filter((candidate) => !fields.includes(candidate)))
    problems.push(`${name}: the registry documents ${field}, which its schema does not have`);
  return problems;
}

/** Every registered event has a valid schema named after it, a valid example and documented fields; no schema is orphaned. */
export async function checkSchemas(registry: RegistryDocument, schemasDir: string, examplesDir: string): Promise<string[]> {
  const registered = [...registry.topics.keys(), ...registry.inProcessEvents];
  const files = new Set((await readdir(schemasDir).catch(() => [])).filter((file) => file.endsWith('.json')));
  const problems: string[] = [];
  for (const name of registered) {
    if (files.delete(`${name}.json`)) problems.push(...(await checkEvent(name, registry, schemasDir, examplesDir)));
    else problems.push(`${name}: registered, but ${displayPath(path.join(schemasDir, `${name}.json`))} does not exist`);
  }
  for (const orphan of files)
    problems.push(`${displayPath(path.join(schemasDir, orphan))}: a schema for an event the registry does not list`);
  for (const section of registry.fieldDocs.keys()) {
    if (!registered.includes(section)) problems.push(`${section}: the registry documents the fields of an event it does not list`);
  }
  return problems;
}
