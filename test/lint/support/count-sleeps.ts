// Fixed sleeps in test code: waits for a set time where a test could wait for a condition (test/support/wait.ts),
// move an injected clock or fake timers, or read what happened (a workflow's history). Test code is every
// *.test.ts and every file under a test/ folder; bench/ is not tests.
//
// The convention: a fixed sleep that must stay carries a comment starting `why:` that says why nothing
// else works (it proves that something does NOT happen within a window, it emulates a delay Kubernetes
// or a slow dependency has, it waits on a clock no test can move...), on the sleep's own line or in the
// `//` comment lines directly above it:
//
//     // why: the bucket refills on the Redis server's clock, which no test can move
//     await sleep(300);
//
// Found as a fixed sleep: a promise resolved by a timer (`new Promise((resolve) => setTimeout(resolve, ms))`),
// a call of sleep(), delay(), of setTimeout imported from node:timers/promises, of scheduler.wait() or of
// Playwright's waitForTimeout(), Temporal's workflow sleep() (a call of sleep() too), and busy waits on the
// clock. `node test/lint/support/count-sleeps.ts` prints the count and where those without a comment are;
// test/lint/fixed-sleeps.test.ts holds that at none.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface FixedSleep {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly text: string;
  /** Whether a `why:` comment is on its line or in the comment lines directly above. */
  readonly explained: boolean;
}

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The rule's own files: their examples are sleeps in strings. */
const SELF = new Set(['test/lint/support/count-sleeps.ts', 'test/lint/fixed-sleeps.test.ts']);

const TIMER_RESOLVES = /setTimeout\(\s*(?:\(\)\s*=>\s*)?(?:resolve|res|r|done|wake)\b(?!\s*\(\s*[^)\s])/;
const SLEEP_CALLS = /\b(?:sleep|delay|waitForTimeout)\s*\(|\bscheduler\.wait\s*\(|\bAtomics\.wait\s*\(/;
const BUSY_WAIT = /\bwhile\s*\(\s*(?:Date|performance)\.now\(\)\s*</;
const TIMERS_PROMISES_IMPORT = /import\s*\{([^}]*)\}\s*from\s*['"](?:node:)?timers\/promises['"]/g;
const WHY = /\/\/.*\bwhy:/;
const COMMENT_LINE = /^\s*\/\//;

/** The names under which a file imported node:timers/promises' setTimeout (`setTimeout as sleep`...). */
function timerAliases(source: string): string[] {
  const names: string[] = [];
  for (const [, specifiers] of source.matchAll(TIMERS_PROMISES_IMPORT)) {
    for (const specifier of (specifiers ?? '').split(',')) {
      const [imported, local] = specifier.trim().split(/\s+as\s+/);
      if (imported === 'setTimeout') names.push(local ?? imported);
    }
  }
  return names;
}

const escaped = (name: string) => name.replace(/[$]/g, '\\$&');

/** The fixed sleeps in one file's text. */
export function fixedSleepsIn(file: string, source: string): FixedSleep[] {
  const aliasCall = timerAliases(source).map((name) => new RegExp(`(?<![\\w.$])${escaped(name)}\\s*\\(`));
  const lines = source.split('\n');
  const found: FixedSleep[] = [];
  lines.forEach((text, index) => {
    if (/^\s*import\b/.test(text)) return;
    const sleeps = TIMER_RESOLVES.test(text) || SLEEP_CALLS.test(text) || BUSY_WAIT.test(text) || aliasCall.some((call) => call.test(text));
    if (!sleeps) return;
    let explained = WHY.test(text);
    for (let above = index - 1; !explained && above >= 0 && COMMENT_LINE.test(lines[above] ?? ''); above -= 1)
      explained = WHY.test(lines[above] ?? '');
    found.push({ file, line: index + 1, text: text.trim(), explained });
  });
  return found;
}

/** Test code as git sees it: tracked files and new ones not ignored. */
export function testFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))]
    .filter((file) => /\.(?:[cm]?js|ts)$/.test(file) && (file.endsWith('.test.ts') || /(?:^|\/)test\//.test(file)))
    .filter((file) => !file.startsWith('bench/') && !SELF.has(file))
    .sort();
}

/** Every fixed sleep in the repository's test code (a file deleted but not yet staged is skipped). */
export function fixedSleeps(): FixedSleep[] {
  return testFiles().flatMap((file) => {
    try {
      return fixedSleepsIn(file, readFileSync(`${ROOT}${file}`, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  });
}

if (import.meta.main) {
  const all = fixedSleeps();
  const unexplained = all.filter((sleep) => !sleep.explained);
  for (const sleep of process.argv.includes('--all') ? all : unexplained)
    console.log(`${sleep.file}:${sleep.line}${sleep.explained ? '' : ' (no why:)'}  ${sleep.text}`);
  console.log(`${all.length} fixed sleeps in test code, ${unexplained.length} without a why: comment`);
}
