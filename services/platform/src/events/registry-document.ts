import { readFile } from 'node:fs/promises';
import { displayPath } from './schema-files.ts';

/** What schemas/topics.md registers; its format is described at the top of that file. */
export interface RegistryDocument {
  /** Topic name -> partition key field. */
  readonly topics: ReadonlyMap<string, string>;
  readonly inProcessEvents: readonly string[];
  /** Event name -> the field paths its `### \`name\`` section documents. */
  readonly fieldDocs: ReadonlyMap<string, readonly string[]>;
  /** Format problems, each `file:line: message`. */
  readonly problems: readonly string[];
}

const TOPIC_COLUMNS = ['Topic', 'Domain', 'Emitted by', 'Partition key', 'Volume', 'Alert if', 'Schema'];
const IN_PROCESS_COLUMNS = ['Event', 'Emitted by', 'Listeners', 'Schema'];
const FIELD_COLUMNS = ['Field', 'Why a consumer needs it'];

interface Table {
  readonly columns: readonly string[];
  /** The `### \`name\`` heading the table sits under, if any. */
  readonly section: string | undefined;
  readonly rows: readonly { readonly line: number; readonly cells: readonly string[] }[];
}

const cellsOf = (line: string): string[] =>
  line
    .trim()
    .slice(1, -1)
    .split('|')
    .map((cell) => cell.trim());
const isRow = (line: string): boolean => line.trim().startsWith('|') && line.trim().endsWith('|');
const SEPARATOR = /^:?-{3,}:?$/;
const CODE = /^`([^`]+)`$/;

function readTables(lines: readonly string[]): Table[] {
  const tables: Table[] = [];
  let section: string | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    if (line.startsWith('#')) section = /^### `([^`]+)`\s*$/.exec(line)?.[1];
    if (!isRow(line) || !cellsOf(lines[index + 1] ?? '').every((cell) => SEPARATOR.test(cell))) continue;
    const rows: { line: number; cells: string[] }[] = [];
    for (let row = index + 2; isRow(lines[row] ?? ''); row += 1) rows.push({ line: row + 1, cells: cellsOf(lines[row] ?? '') });
    tables.push({ columns: cellsOf(line), section, rows });
    index += 1 + rows.length;
  }
  return tables;
}

const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((cell, i) => cell === b[i]);

export function parseRegistryDocument(text: string, file: string): RegistryDocument {
  const label = displayPath(file);
  const problems: string[] = [];
  const tables = readTables(text.split('\n'));

  /** The event rows of the one table headed `columns`: name and cells, after checking the shape. */
  const eventRows = (columns: readonly string[]) => {
    const matching = tables.filter((table) => sameColumns(table.columns, columns));
    if (matching.length !== 1) {
      problems.push(`${label}: expected exactly one table headed | ${columns.join(' | ')} |, found ${matching.length}`);
      return [];
    }
    const seen = new Set<string>();
    return (matching[0]?.rows ?? []).flatMap(({ line, cells }) => {
      const at = `${label}:${line}`;
      if (cells.length !== columns.length) {
        problems.push(`${at}: expected ${columns.length} cells, found ${cells.length}`);
        return [];
      }
      const name = CODE.exec(cells[0] ?? '')?.[1];
      if (name === undefined) {
        problems.push(`${at}: the ${columns[0]} cell must be the name in backticks`);
        return [];
      }
      if (seen.has(name)) problems.push(`${at}: ${name} is listed twice`);
      seen.add(name);
      cells.forEach((cell, i) => cell === '' && problems.push(`${at}: the ${columns[i]} cell of ${name} is empty`));
      const link = `[events/${name}.json](events/${name}.json)`;
      if (cells.at(-1) !== link) problems.push(`${at}: the Schema cell of ${name} must be ${link}`);
      return [{ name, cells, at }];
    });
  };

  const topics = new Map<string, string>();
  for (const { name, cells, at } of eventRows(TOPIC_COLUMNS)) {
    const key = CODE.exec(cells[3] ?? '')?.[1];
    if (key === undefined) problems.push(`${at}: the Partition key cell of ${name} must be a payload field in backticks`);
    topics.set(name, key ?? '');
  }
  const inProcessEvents = eventRows(IN_PROCESS_COLUMNS).map((row) => row.name);

  const fieldDocs = new Map<string, string[]>();
  for (const table of tables.filter((candidate) => sameColumns(candidate.columns, FIELD_COLUMNS))) {
    const first = table.rows[0]?.line ?? 0;
    if (table.section === undefined) {
      problems.push(`${label}:${first}: a field table must sit under a heading ### \`<event name>\``);
      continue;
    }
    const fields = table.rows.map(({ line, cells }) => {
      const field = CODE.exec(cells[0] ?? '')?.[1];
      if (field === undefined || cells.length !== FIELD_COLUMNS.length || cells[1] === '') {
        problems.push(`${label}:${line}: a field row is | \`field.path\` | why a consumer needs it |`);
      }
      return field ?? '';
    });
    fieldDocs.set(table.section, [...(fieldDocs.get(table.section) ?? []), ...fields]);
  }
  return { topics, inProcessEvents, fieldDocs, problems };
}

export async function readRegistryDocument(file: string): Promise<RegistryDocument> {
  try {
    return parseRegistryDocument(await readFile(file, 'utf8'), file);
  } catch (error) {
    return {
      topics: new Map(),
      inProcessEvents: [],
      fieldDocs: new Map(),
      problems: [`${displayPath(file)}: ${(error as Error).message}`],
    };
  }
}
