import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { EventName, EventPayloads } from '../../src/events/catalog.ts';
import { EXAMPLES_DIR } from '../../src/events/schema-files.ts';

const examples = new Map<EventName, unknown>();

/** The documented example payload of an event (read once), with fields overridden. */
export function examplePayload<N extends EventName>(name: N, overrides: Partial<EventPayloads[N]> = {}): EventPayloads[N] {
  if (!examples.has(name)) examples.set(name, JSON.parse(readFileSync(path.join(EXAMPLES_DIR, `${name}.json`), 'utf8')));
  return { ...(structuredClone(examples.get(name)) as EventPayloads[N]), ...overrides };
}
