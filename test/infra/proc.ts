// Child-process and port helpers shared by provision.ts and servers.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { waitFor } from '../support/wait.ts';

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
}

export interface RunToCompletionOptions extends RunOptions {
  /** Kills the command (SIGTERM, SIGKILL 10 s later) once it has run this long. No limit by default. */
  timeoutMs?: number;
}

/** Runs a command to completion; rejects with the tail of its output when it fails or times out. */
export function run(cmd: string, args: readonly string[], options: RunToCompletionOptions = {}): Promise<string> {
  const { timeoutMs, ...spawnOptions } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timedOut = false;
    const timers: NodeJS.Timeout[] = [];
    if (timeoutMs !== undefined) {
      timers.push(
        setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
          timers.push(setTimeout(() => child.kill('SIGKILL'), 10_000));
        }, timeoutMs),
      );
    }
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => {
      for (const timer of timers) clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      for (const timer of timers) clearTimeout(timer);
      if (code === 0 && !timedOut) resolve(output);
      else {
        const limit = timeoutMs ?? 0;
        const how = timedOut
          ? `a timeout (${limit >= 120_000 ? `${Math.round(limit / 60_000)} min` : `${limit} ms`})`
          : signal
            ? `signal ${signal}`
            : `exit code ${code}`;
        reject(new Error(`${cmd} ${args.join(' ')} failed with ${how}:\n${lastLines(output, 30)}`));
      }
    });
  });
}

export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this dir
    }
  }
  return undefined;
}

export function lastLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

export function tailFile(path: string, count = 40): string {
  try {
    return lastLines(readFileSync(path, 'utf8'), count);
  } catch {
    return '(no log)';
  }
}

/** Asks the kernel for a free port. Another process could take it before we bind; acceptable for tests. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not allocate a port'));
      });
    });
  });
}

/** Whether this process could listen on 127.0.0.1:`port` now (nothing else holds it, on any address). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Tries a TCP connection: resolves 'connected', or the socket error's code (e.g. ECONNREFUSED, ETIMEDOUT after 2 s). */
export function connectOutcome(port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    const done = (outcome: string) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.once('connect', () => done('connected'));
    socket.once('timeout', () => done('ETIMEDOUT'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

export async function isPortOpen(port: number, host?: string): Promise<boolean> {
  return (await connectOutcome(port, host)) === 'connected';
}

export async function waitForPortClosed(port: number, timeoutMs: number): Promise<void> {
  await waitFor(async () => !(await isPortOpen(port)), timeoutMs, `port ${port} to stop accepting connections`, 50);
}

// Every long-running server we spawned and the temp dirs they use, so an unexpected exit of this
// process (a crash, process.exit() in a test runner) does not leave orphans behind.
const liveChildren = new Set<ChildProcess>();
const liveTempDirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL by PID, then remove the data.
  process.on('exit', () => {
    for (const child of liveChildren) {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    for (const dir of liveTempDirs) rmSync(dir, { recursive: true, force: true });
  });
}

export function trackTempDir(dir: string): void {
  installExitHook();
  liveTempDirs.add(dir);
}

export function untrackTempDir(dir: string): void {
  liveTempDirs.delete(dir);
}

export interface ServerProcess {
  readonly pid: number;
  /** Set once the process has exited. */
  exitStatus(): string | undefined;
  /** Sends `signal`, escalates to SIGKILL after `timeoutMs`, resolves once the process is gone. */
  stop(signal: NodeJS.Signals, timeoutMs: number): Promise<void>;
}

export interface LaunchOptions extends RunOptions {
  /** stdout and stderr are appended here. */
  logFile: string;
}

export async function launch(cmd: string, args: readonly string[], options: LaunchOptions): Promise<ServerProcess> {
  installExitHook();
  const { logFile, ...spawnOptions } = options;
  const logFd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, { ...spawnOptions, stdio: ['ignore', logFd, logFd] });
  } finally {
    closeSync(logFd); // the child holds its own copy
  }
  liveChildren.add(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      liveChildren.delete(child);
      resolve();
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => {
      liveChildren.delete(child);
      reject(error);
    });
  });
  const pid = child.pid as number;
  return {
    pid,
    exitStatus: () => {
      if (child.signalCode !== null) return `killed by ${child.signalCode}`;
      if (child.exitCode !== null) return `exited with code ${child.exitCode}`;
      return undefined;
    },
    async stop(signal, timeoutMs) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, signal);
      const timer = setTimeout(() => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // exited in the meantime
        }
      }, timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
