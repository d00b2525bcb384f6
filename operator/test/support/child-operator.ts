import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const ENTRY = new URL('./operator-process.ts', import.meta.url).pathname;

export interface ChildOperator {
  readonly process: ChildProcess;
  /** Resolves with the first stdout line containing `text`. */
  waitForLine(text: string): Promise<string>;
  /** Resolves with the exit code and everything written to stderr. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Runs test/support/operator-process.ts in its own Node process with `env` added to a minimal environment. */
export function spawnOperator(env: Record<string, string>): ChildOperator {
  const child = spawn(process.execPath, [ENTRY], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines: string[] = [];
  const waiters: Array<{ text: string; resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((candidate) => line.includes(candidate.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  void exit.then(() => {
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the operator exited before printing "${waiter.text}": ${stderr}`));
  });
  return {
    process: child,
    waitForLine: (text) => {
      const seen = lines.find((line) => line.includes(text));
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve, reject) => waiters.push({ text, resolve, reject }));
    },
    exited: async () => {
      const [code, signal] = await exit;
      return { code, signal, stderr };
    },
  };
}
