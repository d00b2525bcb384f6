import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { waitFor } from './wait.ts';

export interface ServiceProcess {
  readonly child: ChildProcess;
  output(): string;
  /** The JSON log lines so far (other output is left out). */
  logLines(): Array<Record<string, unknown>>;
  /** Resolves with the base URL of its HTTP server once it logs that it listens. */
  listening(timeoutMs?: number): Promise<string>;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a service entry point as its own process with exactly `env` (plus PATH and HOME). */
export function spawnService(entry: string, env: NodeJS.ProcessEnv, cwd?: string): ServiceProcess {
  const child = spawn(process.execPath, [entry], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));

  return {
    child,
    output: () => output,
    logLines: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited: () => exit,
    async listening(timeoutMs = 60_000) {
      const address = () => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      // Stops early when the process has exited; the error below says what it printed.
      await waitFor(() => address() !== undefined || child.exitCode !== null, timeoutMs, `${entry} to listen`, 50).catch(() => undefined);
      const url = address();
      if (url !== undefined) return url;
      child.kill('SIGKILL');
      throw new Error(`${entry} did not start listening:\n${output}`);
    },
  };
}
