// The lint rules that need type information: a promise nobody awaits or handles is an error, as is
// a promise passed where a callback's result is ignored, and a switch that does not name every case. ESLint lints the given text as if it were
// a file of the project, so the project's own types and settings apply.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Any file of the project: its text is replaced by the snippet for the lint. */
const AS_FILE = `${ROOT}services/runtime/src/index.ts`;

async function ruleIds(code: string): Promise<string[]> {
  const [result] = await new ESLint({ cwd: ROOT }).lintText(code, { filePath: AS_FILE });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('type-aware lint rules', () => {
  it('refuses a floating promise, a promise where a void callback goes, and awaiting a non-promise', async () => {
    const code = `
      export async function save(): Promise<void> {}
      export function handler(): void {
        save();
        [1, 2].forEach(async () => save());
      }
      export async function twice(): Promise<number> {
        return await 2;
      }
    `;
    expect((await ruleIds(code)).sort()).toEqual([
      '@typescript-eslint/await-thenable',
      '@typescript-eslint/no-floating-promises',
      '@typescript-eslint/no-misused-promises',
    ]);
  }, 60_000);

  it('accepts the same promises awaited, handled or explicitly let go', async () => {
    const code = `
      export async function save(): Promise<void> {}
      export async function handler(): Promise<void> {
        await save();
        save().catch(() => undefined);
        void save();
        for (const _ of [1, 2]) await save();
      }
    `;
    expect(await ruleIds(code)).toEqual([]);
  }, 60_000);

  it('refuses a switch over a union that misses a member or hides it behind a default, and one over a string without a default', async () => {
    const code = `
      export type Phase = 'adding' | 'retiring';
      export function missing(phase: Phase): number {
        switch (phase) {
          case 'adding':
            return 1;
        }
        return 0;
      }
      export function hidden(phase: Phase): number {
        switch (phase) {
          case 'adding':
            return 1;
          default:
            return 0;
        }
      }
      export function open(name: string): number {
        switch (name) {
          case 'adding':
            return 1;
        }
        return 0;
      }
    `;
    expect(await ruleIds(code)).toEqual(Array(3).fill('@typescript-eslint/switch-exhaustiveness-check'));
  }, 60_000);

  it('accepts a switch naming every member of a union, and one over a string with its default', async () => {
    const code = `
      export type Phase = 'adding' | 'retiring';
      export function named(phase: Phase): number {
        switch (phase) {
          case 'adding':
            return 1;
          case 'retiring':
            return 2;
        }
      }
      export function open(name: string): number {
        switch (name) {
          case 'adding':
            return 1;
          default:
            return 0;
        }
      }
    `;
    expect(await ruleIds(code)).toEqual([]);
  }, 60_000);
});
