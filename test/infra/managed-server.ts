// The lifecycle shared by every server: launch, wait until it really answers, stop by PID, dispose.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROVISION_COMMAND } from './layout.ts';
import { tailFile, trackTempDir, untrackTempDir, waitForPortClosed, type ServerProcess } from './proc.ts';
import { eventually } from '../support/wait.ts';

export type ServerName =
  | 'postgres'
  | 'redis'
  | 'kafka'
  | 'temporal'
  | 'temporal-test-server'
  | 'kine'
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'versitygw'
  | 'prometheus';

export interface ServerHandle {
  readonly name: ServerName;
  readonly port: number;
  readonly url: string;
  pid(): number | undefined;
  /** Stops the process by its PID (graceful signal, SIGKILL after a timeout) and waits until the port is closed. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data dir. */
  start(): Promise<void>;
  /** stop() and delete the temp data (a kept `ServerPlacement.dir` stays). */
  dispose(): Promise<void>;
}

export interface ServerDefinition {
  readonly name: ServerName;
  readonly port: number;
  readonly url: string;
  /** The dir given to `define`: holds data and server.log; deleted by dispose() unless it is a kept `ServerPlacement.dir`. */
  readonly baseDir: string;
  launch(logFile: string): Promise<ServerProcess>;
  /** One readiness attempt: resolves only after a real round trip with the server. */
  probe(): Promise<void>;
  readonly readyTimeoutMs: number;
  /** The signal that means "shut down now, cleanly" for this server. */
  readonly stopSignal: NodeJS.Signals;
  readonly stopTimeoutMs: number;
}

/** Where a server listens and keeps its data. Left out: a free port, and a fresh temp dir that dispose() deletes. */
export interface ServerPlacement {
  readonly port?: number;
  /** Created when missing and never deleted, so a restart finds the data of the last run (the dev stack). */
  readonly dir?: string;
}

export function requireProvisioned(what: string, provisioned: boolean): void {
  if (!provisioned) throw new Error(`${what} is not provisioned; run: ${PROVISION_COMMAND}`);
}

async function removeBaseDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  untrackTempDir(dir);
}

/**
 * Creates a fresh temp dir (removed even if this process exits without dispose()), or the kept `dir`,
 * lets `define` prepare it and describe the server, then starts the server. A temp dir is removed if anything fails.
 */
export async function startServer(
  name: ServerName,
  define: (baseDir: string) => Promise<ServerDefinition>,
  dir?: string,
): Promise<ServerHandle> {
  if (dir !== undefined) {
    await mkdir(dir, { recursive: true });
    return startManagedServer(await define(dir), async () => undefined);
  }
  const baseDir = await mkdtemp(join(tmpdir(), `shop-infra-${name}-`));
  trackTempDir(baseDir);
  try {
    return await startManagedServer(await define(baseDir), () => removeBaseDir(baseDir));
  } catch (error) {
    await removeBaseDir(baseDir);
    throw error;
  }
}

async function startManagedServer(definition: ServerDefinition, releaseDir: () => Promise<void>): Promise<ServerHandle> {
  const { name, port, baseDir } = definition;
  const logFile = join(baseDir, 'server.log');
  let current: ServerProcess | undefined;

  const stop = async (): Promise<void> => {
    if (current) {
      await current.stop(definition.stopSignal, definition.stopTimeoutMs);
      current = undefined;
    }
    await waitForPortClosed(port, definition.stopTimeoutMs);
  };

  const start = async (): Promise<void> => {
    if (current && current.exitStatus() === undefined) return;
    const started = await definition.launch(logFile);
    current = started;
    try {
      await eventually(definition.probe, {
        timeoutMs: definition.readyTimeoutMs,
        intervalMs: 200,
        abortReason: () => {
          const status = started.exitStatus();
          return status && `process ${status}`;
        },
      });
    } catch (error) {
      await stop().catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`${name} on 127.0.0.1:${port} did not start: ${reason}\n--- ${logFile} (last lines) ---\n${tailFile(logFile)}`);
    }
  };

  const dispose = async (): Promise<void> => {
    try {
      await stop();
    } finally {
      await releaseDir();
    }
  };

  await start();
  return { name, port, url: definition.url, pid: () => current?.pid, start, stop, dispose };
}
