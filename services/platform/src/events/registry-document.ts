import { readFile } from 'node:fs/promises';

export interface RegistryDocument {
  /** Topic name -> partition key field. */
  readonly topics: ReadonlyMap<string, string>;
  readonly inProcessEvents: readonly string[];
}

const ROW = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/;

/** Reads the two tables of schemas/topics.md: a table row starts with the event name in backticks. */
export async function readRegistryDocument(path: string): Promise<RegistryDocument> {
  const topics = new Map<string, string>();
  const inProcessEvents: string[] = [];
  let section: 'topics' | 'in-process' | undefined;
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    if (line.startsWith('## ')) section = /broker topics/i.test(line) ? 'topics' : /in-process/i.test(line) ? 'in-process' : undefined;
    const row = ROW.exec(line);
    if (row === null || section === undefined) continue;
    const [, name = '', rest = ''] = row;
    if (section === 'in-process') inProcessEvents.push(name);
    else topics.set(name, /`([^`]+)`/.exec(rest.split('|')[2] ?? '')?.[1] ?? '');
  }
  return { topics, inProcessEvents };
}
