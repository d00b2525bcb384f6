import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

export const API_MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

export interface ApiProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the base URL once the api logs that it listens. */
  listening(timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code. */
  exited(): Promise<number | null>;
}

/** Runs the api entry point as its own process with exactly `env` (plus PATH and HOME). */
export function runApi(env: NodeJS.ProcessEnv, cwd?: string): ApiProcess {
  const child = spawn(process.execPath, [API_MAIN], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = once(child, 'exit').then(([code]) => code as number | null);

  return {
    child,
    output: () => output,
    exited: () => exit,
    async listening(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match?.[1]) return match[1];
        if (child.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.kill('SIGKILL');
      throw new Error(`the api did not start listening:\n${output}`);
    },
  };
}
