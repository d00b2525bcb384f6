// No fixed sleep in test code without a `why:` comment: the convention and what counts as a fixed sleep
// are in count-sleeps.ts's header. A test waits for a condition (test/support/wait.ts, expect.poll), moves
// an injected clock or fake timers (vi.useFakeTimers, Playwright's page.clock), or reads what happened
// (a workflow's history); a sleep that must stay says why nothing else works.
import { describe, expect, it } from 'vitest';
import { fixedSleeps, fixedSleepsIn } from './support/count-sleeps.ts';

const found = (source: string) => fixedSleepsIn('example.test.ts', source).map(({ line, explained }) => ({ line, explained }));

describe('fixed sleeps in test code', () => {
  it('each one left says why', () => {
    const unexplained = fixedSleeps().filter((sleep) => !sleep.explained);
    expect(unexplained.map((sleep) => `${sleep.file}:${sleep.line}  ${sleep.text}`)).toEqual([]);
  });

  it('finds timer promises, sleep and delay calls, node:timers/promises, Playwright and Temporal sleeps, and busy waits', () => {
    const source = [
      "import { setTimeout as pause } from 'node:timers/promises';",
      'await new Promise((resolve) => setTimeout(resolve, 100));',
      'await new Promise<void>((r) => setTimeout(() => r(), 100).unref());',
      'await pause(50);',
      'await delay(50);',
      "await page.waitForTimeout(100); await inPage('scenario.sleep(60)');",
      "await sleep('1 minute'); // Temporal's, in a workflow",
      'while (Date.now() < deadline) {}',
    ].join('\n');
    expect(found(source).map(({ line }) => line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
  });

  it('leaves timeouts, scheduled callbacks, polls and fake timers alone', () => {
    const source = [
      "const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5_000));",
      "const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);",
      "await waitFor(async () => (await rows()).length === 1, 30_000, 'the row');",
      'await vi.advanceTimersByTimeAsync(50);',
      'await page.clock.runFor(1_000);',
      'const retryInMs = backoffDelay(failures, policy);',
    ].join('\n');
    expect(found(source)).toEqual([]);
  });

  it('takes a why: comment on the same line or in the comment lines directly above', () => {
    const source = [
      'await sleep(1); // why: on its line',
      '// why: the block above says why,',
      '// over two lines',
      'await sleep(2);',
      '// a comment that does not say why',
      'await sleep(3);',
      '// why: separated by a blank line',
      '',
      'await sleep(4);',
    ].join('\n');
    expect(found(source)).toEqual([
      { line: 1, explained: true },
      { line: 4, explained: true },
      { line: 6, explained: false },
      { line: 9, explained: false },
    ]);
  });
});
