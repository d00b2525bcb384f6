import { orderMachine } from '@shop/domain/orders';
import { refundMachine, refundRequestMachine } from '@shop/domain/refunds';
import { returnMachine } from '@shop/domain/returns';
import { overdraftDraftMachine } from '@shop/domain/store-credit';
import { tenderMachine } from '@shop/domain/tenders';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The state tables in the docs say what the code's machines allow: each machine's table (a `Move |
 * From | To` table under its heading) lists every step [from, to] the machine allows and no other,
 * and names every state the machine has.
 */

const root = path.resolve(import.meta.dirname, '..');

/** The lines under the headings `headings`, each found after the one before, up to the next heading as high as the last. */
function section(doc: string, file: string, headings: readonly string[]): string[] {
  const lines = doc.split('\n');
  let at = -1;
  for (const heading of headings) {
    at = lines.findIndex((line, index) => index > at && line === heading);
    if (at < 0) throw new Error(`${file} has no heading ${heading} under ${headings.join(' > ')}`);
  }
  const level = (headings.at(-1) ?? '').indexOf(' ');
  const end = lines.findIndex((line, index) => index > at && /^#+ /.test(line) && line.indexOf(' ') <= level);
  return lines.slice(at + 1, end < 0 ? undefined : end);
}

/** The states a cell starts with: back-quoted names separated by commas (`A`, `B`, then any words). */
function leadingStates(cell: string): string[] {
  const list = /^`[A-Z_]+`(?:,\s*`[A-Z_]+`)*/.exec(cell)?.[0] ?? '';
  return [...list.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1] ?? '');
}

/** Every [from, to] step of the one `Move | From | To` table of the section, as `from -> to`. */
function documentedSteps(lines: readonly string[], where: string): string[] {
  const rows = lines
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const headers = rows.filter((cells) => cells[0] === 'Move' && cells.includes('From') && cells.includes('To'));
  if (headers.length !== 1) throw new Error(`${where} has ${headers.length} Move | From | To tables, not one`);
  const header = headers[0] ?? [];
  const start = rows.indexOf(header);
  const steps: string[] = [];
  for (const cells of rows.slice(start + 2)) {
    if (cells.length !== header.length) break;
    const from = leadingStates(cells[header.indexOf('From')] ?? '');
    const to = leadingStates(cells[header.indexOf('To')] ?? '');
    if (from.length === 0 || to.length !== 1)
      throw new Error(`${where}: the row "${cells.join(' | ')}" names no state it leaves from, or not one it leads to`);
    steps.push(...from.map((state) => `${state} -> ${to[0]}`));
  }
  return steps;
}

const TABLES: { name: string; file: string; headings: string[]; machine: { states: readonly string[]; steps(): [string, string][] } }[] = [
  { name: 'order', file: 'docs/domain.md', headings: ['## Order lifecycle'], machine: orderMachine },
  { name: 'tender', file: 'docs/money.md', headings: ['## Tenders', '### State machine'], machine: tenderMachine },
  { name: 'overdraft draft', file: 'docs/money.md', headings: ['## Store credit', '### Overdraft drafts'], machine: overdraftDraftMachine },
  {
    name: 'refund request',
    file: 'docs/money.md',
    headings: ['## Refunds', '### State machines', '#### The request'],
    machine: refundRequestMachine,
  },
  { name: 'refund', file: 'docs/money.md', headings: ['## Refunds', '### State machines', '#### A refund'], machine: refundMachine },
  { name: 'return', file: 'docs/money.md', headings: ['## Returns', '### State machine'], machine: returnMachine },
];

describe('the docs state tables and the code state machines', () => {
  it.each(TABLES)('agree on the $name machine ($file)', async ({ file, headings, machine }) => {
    const where = `${file} ${headings.join(' > ')}`;
    const documented = documentedSteps(section(await readFile(path.join(root, file), 'utf8'), file, headings), where);
    const coded = machine.steps().map(([from, to]) => `${from} -> ${to}`);
    expect([...new Set(documented)].sort(), `the steps ${where} lists`).toEqual([...new Set(coded)].sort());
    const states = new Set(documented.flatMap((step) => step.split(' -> ')));
    expect([...states].sort(), `the states ${where} names`).toEqual([...machine.states].sort());
  });
});
