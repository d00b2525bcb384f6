/**
 * The event build gate (`npm run check:events`, part of `npm test`): every emitted name is in the
 * registry (schemas/topics.md) and follows the naming convention, every registered event has a
 * valid schema named after it, a valid example and documented fields, the registry and catalog.ts
 * agree, and payloads.generated.ts is current. One line per problem; exit 1 when there is any.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { IN_PROCESS_EVENTS, TOPICS } from './catalog.ts';
import { findEmitSites, type EmitSite } from './emit-sites.ts';
import { GENERATED_FILE, renderPayloadTypes } from './generate-payload-types.ts';
import { readRegistryDocument, type RegistryDocument } from './registry-document.ts';
import { checkSchemas } from './schema-checks.ts';
import { displayPath, EXAMPLES_DIR, REGISTRY_PATH, REPO_ROOT, SCHEMAS_DIR } from './schema-files.ts';

const TOPIC_NAME = /^shop\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\.v[1-9][0-9]*$/;
const IN_PROCESS_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;
const TOPIC_CONVENTION = 'topics are named shop.<domain>.<event>.v<N>, lowercase, words joined by underscores';

export interface CheckOptions {
  /** Directories whose TypeScript sources are scanned for emit calls. */
  readonly sourceRoots: readonly string[];
  readonly registryPath?: string;
  readonly schemasDir?: string;
  readonly examplesDir?: string;
}

export interface CheckResult {
  readonly problems: readonly string[];
  readonly topics: number;
  readonly inProcessEvents: number;
  readonly emitSites: number;
}

function namingProblems(registry: RegistryDocument): string[] {
  return [
    ...[...registry.topics.keys()].filter((name) => !TOPIC_NAME.test(name)).map((name) => `${name}: ${TOPIC_CONVENTION}`),
    ...registry.inProcessEvents
      .filter((name) => !IN_PROCESS_NAME.test(name))
      .map((name) => `${name}: in-process events are named <domain>.<event>, lowercase, words joined by underscores`),
  ];
}

function catalogProblems(registry: RegistryDocument): string[] {
  const problems: string[] = [];
  const code = new Map<string, string>(Object.entries(TOPICS).map(([name, topic]) => [name, topic.partitionKey]));
  for (const [name, key] of registry.topics) {
    const coded = code.get(name);
    if (coded === undefined) problems.push(`${name}: in the registry but not in catalog.ts TOPICS`);
    else if (coded !== key) problems.push(`${name}: partition key is ${key} in the registry but ${coded} in catalog.ts`);
  }
  for (const name of code.keys()) if (!registry.topics.has(name)) problems.push(`${name}: in catalog.ts TOPICS but not in the registry`);
  const inProcess: readonly string[] = IN_PROCESS_EVENTS;
  for (const name of registry.inProcessEvents.filter((event) => !inProcess.includes(event))) {
    problems.push(`${name}: in the registry but not in catalog.ts IN_PROCESS_EVENTS`);
  }
  for (const name of inProcess.filter((event) => !registry.inProcessEvents.includes(event))) {
    problems.push(`${name}: in catalog.ts IN_PROCESS_EVENTS but not in the registry`);
  }
  return problems;
}

function emitProblems(sites: readonly EmitSite[], registry: RegistryDocument): string[] {
  return sites.flatMap(({ file, line, name }) => {
    const at = `${displayPath(file)}:${line}`;
    if (name === undefined) return [`${at}: emit name must be a string literal`];
    if (registry.topics.has(name) || registry.inProcessEvents.includes(name)) return [];
    const convention = TOPIC_NAME.test(name) || IN_PROCESS_NAME.test(name) ? '' : `; ${TOPIC_CONVENTION}`;
    return [`${at}: emits ${name}, which is not in the registry${convention}`];
  });
}

async function generatedProblems(schemasDir: string): Promise<string[]> {
  const committed = await readFile(GENERATED_FILE, 'utf8').catch(() => '');
  const rendered = await renderPayloadTypes(schemasDir).catch((error: unknown) => error as Error);
  if (rendered instanceof Error) return [`${displayPath(GENERATED_FILE)}: cannot be generated: ${rendered.message}`];
  return committed === rendered ? [] : [`${displayPath(GENERATED_FILE)}: stale, regenerate it with npm run events:generate`];
}

export async function checkEvents(options: CheckOptions): Promise<CheckResult> {
  const registryPath = options.registryPath ?? REGISTRY_PATH;
  const schemasDir = options.schemasDir ?? SCHEMAS_DIR;
  const registry = await readRegistryDocument(registryPath);
  const sites = await findEmitSites(options.sourceRoots);
  const problems = [
    ...registry.problems,
    ...namingProblems(registry),
    ...catalogProblems(registry),
    ...(await checkSchemas(registry, schemasDir, options.examplesDir ?? EXAMPLES_DIR)),
    ...emitProblems(sites, registry),
    ...(await generatedProblems(schemasDir)),
  ];
  return { problems, topics: registry.topics.size, inProcessEvents: registry.inProcessEvents.length, emitSites: sites.length };
}

if (import.meta.main) {
  const result = await checkEvents({ sourceRoots: [path.join(REPO_ROOT, 'services')] });
  for (const problem of result.problems) process.stderr.write(`check:events: ${problem}\n`);
  if (result.problems.length > 0) process.exit(1);
  const summary = `${result.topics} topics, ${result.inProcessEvents} in-process events, ${result.emitSites} emit sites`;
  process.stdout.write(`check:events: ok (${summary})\n`);
}
