// Reads images/Containerfile into its stages and their instructions: enough of the syntax for the
// drift test (comments, line continuations, `FROM … AS name`), not a general parser.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../../../images/build/layout.ts';

export interface Instruction {
  /** Upper case: COPY, ENV, … */
  readonly keyword: string;
  readonly args: string;
}

export interface Stage {
  readonly name: string;
  readonly base: string;
  readonly instructions: readonly Instruction[];
}

export const CONTAINERFILE = join(REPOSITORY_ROOT, 'images/Containerfile');

export async function readContainerfile(): Promise<Stage[]> {
  const text = await readFile(CONTAINERFILE, 'utf8');
  const lines = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const stages: Array<{ name: string; base: string; instructions: Instruction[] }> = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const from = keyword.toUpperCase() === 'FROM' ? /^(\S+)\s+AS\s+(\S+)$/i.exec(args) : null;
    if (from) stages.push({ base: from[1] as string, name: from[2] as string, instructions: [] });
    else stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ') });
  }
  return stages;
}

/** The arguments of every `keyword` instruction of the stage. */
export function argsOf(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
}

/** `A=1 B="two words"` -> { A: '1', B: 'two words' } (ENV and LABEL). */
export function keyValues(args: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    args.flatMap((line) => [...line.matchAll(/([^\s=]+)=("([^"]*)"|\S*)/g)].map((match) => [match[1], match[3] ?? match[2]])),
  );
}
