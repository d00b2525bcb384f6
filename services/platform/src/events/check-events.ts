/**
 * The event build gate (`npm run check:events`): every emitted name is registered in
 * schemas/topics.md, every registered event has a valid schema and example, the registry document
 * and catalog.ts agree, names follow the convention, and the generated payload types are current.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { IN_PROCESS_EVENTS, TOPICS } from './catalog.ts';
import { findEmitSites } from './emit-sites.ts';
import { readRegistryDocument } from './registry-document.ts';
import { createSchemaCompiler, EVENT_SCHEMAS_DIR } from './validator.ts';
import { GENERATED_FILE, renderPayloadTypes } from './generate-payload-types.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');
const TOPIC_NAME = /^shop\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\.v[1-9][0-9]*$/;
const IN_PROCESS_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

export interface CheckOptions {
  readonly sourceRoots: readonly string[];
  readonly registryPath?: string;
  readonly schemasDir?: string;
  readonly examplesDir?: string;
}

export interface CheckResult {
  readonly problems: readonly string[];
  readonly emitSites: number;
}

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8'));
}

function sameEntries(a: Iterable<[string, string]>, b: Iterable<[string, string]>): boolean {
  const key = (entries: Iterable<[string, string]>) => JSON.stringify([...entries].sort());
  return key(a) === key(b);
}

export async function checkEvents(options: CheckOptions): Promise<CheckResult> {
  const schemasDir = options.schemasDir ?? EVENT_SCHEMAS_DIR;
  const examplesDir = options.examplesDir ?? path.join(schemasDir, '../examples');
  const registry = await readRegistryDocument(options.registryPath ?? path.join(schemasDir, '../topics.md'));
  const registered = [...registry.topics.keys(), ...registry.inProcessEvents];
  const problems: string[] = [];

  for (const name of registry.topics.keys()) if (!TOPIC_NAME.test(name)) problems.push(`${name}: topic names follow shop.<domain>.<event>.v<N>`);
  for (const name of registry.inProcessEvents) if (!IN_PROCESS_NAME.test(name)) problems.push(`${name}: in-process names follow <area>.<event>`);
  const catalogTopics = Object.entries(TOPICS).map(([name, topic]): [string, string] => [name, topic.partitionKey]);
  if (!sameEntries(registry.topics, catalogTopics)) problems.push('schemas/topics.md and catalog.ts TOPICS list different topics or partition keys');
  if (!sameEntries(registry.inProcessEvents.map((n) => [n, '']), IN_PROCESS_EVENTS.map((n) => [n, '']))) {
    problems.push('schemas/topics.md and catalog.ts IN_PROCESS_EVENTS list different events');
  }

  const ajv = createSchemaCompiler();
  const schemaFiles = new Set((await readdir(schemasDir)).filter((file) => file.endsWith('.json')));
  for (const name of registered) {
    if (!schemaFiles.delete(`${name}.json`)) {
      problems.push(`${name}: registered but has no schema ${path.join(schemasDir, `${name}.json`)}`);
      continue;
    }
    const schema = (await readJson(path.join(schemasDir, `${name}.json`))) as { $id?: string };
    if (schema.$id !== name) problems.push(`${name}: the schema's $id is "${schema.$id}", not the event name`);
    try {
      const validate = ajv.compile(schema);
      const example = await readJson(path.join(examplesDir, `${name}.json`)).catch(() => undefined);
      if (example === undefined) problems.push(`${name}: no example in ${examplesDir}`);
      else if (!validate(example)) problems.push(`${name}: its example does not match its schema: ${ajv.errorsText(validate.errors)}`);
    } catch (error) {
      problems.push(`${name}: the schema is not valid JSON Schema: ${(error as Error).message}`);
    }
  }
  for (const orphan of schemaFiles) problems.push(`${orphan}: a schema for an event that schemas/topics.md does not register`);

  const sites = await findEmitSites(options.sourceRoots);
  for (const site of sites) {
    const where = `${path.relative(REPO_ROOT, site.file)}:${site.line}`;
    if (site.name === undefined) problems.push(`${where}: emit's event name must be a string literal`);
    else if (!registered.includes(site.name)) problems.push(`${where}: emits ${site.name}, which schemas/topics.md does not register`);
  }

  if ((await readFile(GENERATED_FILE, 'utf8').catch(() => '')) !== (await renderPayloadTypes())) {
    problems.push(`${path.relative(REPO_ROOT, GENERATED_FILE)} is stale: run npm run events:generate`);
  }
  return { problems, emitSites: sites.length };
}

if (import.meta.main) {
  const result = await checkEvents({ sourceRoots: [path.join(REPO_ROOT, 'services')] });
  for (const problem of result.problems) process.stderr.write(`check:events: ${problem}\n`);
  if (result.problems.length > 0) process.exit(1);
  const summary = `${Object.keys(TOPICS).length} topics, ${IN_PROCESS_EVENTS.length} in-process events, ${result.emitSites} emit sites`;
  process.stdout.write(`check:events: ok (${summary})\n`);
}
