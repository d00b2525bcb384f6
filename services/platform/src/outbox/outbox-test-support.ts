import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { EventName, EventPayloads } from '../events/catalog.ts';
import { EXAMPLES_DIR } from '../events/schema-files.ts';

/** The documented example payload of an event, with fields overridden. */
export function examplePayload<N extends EventName>(name: N, overrides: Partial<EventPayloads[N]> = {}): EventPayloads[N] {
  const example = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, `${name}.json`), 'utf8')) as EventPayloads[N];
  return { ...example, ...overrides };
}
