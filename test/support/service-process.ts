import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

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
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match?.[1]) return match[1];
        if (child.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.kill('SIGKILL');
      throw new Error(`${entry} did not start listening:\n${output}`);
    },
  };
}
