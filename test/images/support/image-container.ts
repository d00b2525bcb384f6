// A working container of a built image's OCI archive, in buildah storage (vfs) of its own, run with
// chroot isolation: no daemon and no OCI runtime, and the processes share the host's network, so a
// server inside listens on the host's loopback. Commands run with the image's user, working
// directory and environment, as a container engine would start them.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { command } from '../../../images/build/command.ts';
import { WRITABLE_DIR } from '../../../images/contents.ts';
import { lastLines, trackTempDir, untrackTempDir } from '../../infra/proc.ts';

export interface RunOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** buildah `--mount` specifications, e.g. `type=bind,src=/host/dir,dst=/in/container`. */
  readonly mounts?: readonly string[];
}

export interface Exit {
  readonly code: number | null;
  readonly output: string;
}

export interface ContainerProcess {
  output(): string;
  /** Why it is no longer running (with the end of its output), or undefined while it runs. */
  exitReason(): string | undefined;
  exited(): Promise<Exit>;
  /** SIGTERM to the process group, SIGKILL after 10 s; resolves once it has exited. */
  stop(): Promise<Exit>;
}

/** The parts of the image's OCI configuration the tests read. */
export interface ImageConfig {
  readonly User: string;
  readonly WorkingDir: string;
  readonly Entrypoint: string[];
  readonly Env: string[];
  readonly Labels: Record<string, string>;
  readonly ExposedPorts: Record<string, object>;
}

export interface ImageContainer {
  /** The container's root filesystem as the host sees it. */
  readonly rootDir: string;
  readonly config: ImageConfig;
  start(args: readonly string[], options?: RunOptions): ContainerProcess;
  run(args: readonly string[], options?: RunOptions): Promise<Exit>;
  dispose(): Promise<void>;
}

function startProcess(program: string, args: readonly string[]): ContainerProcess {
  // Its own process group: buildah's chroot runtime and the command inside stop together.
  const child: ChildProcess = spawn(program, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = once(child, 'close').then(([code]) => ({ code: code as number | null, output }));
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid as number), name);
    } catch {
      // already gone
    }
  };
  return {
    output: () => output,
    exitReason: () => (child.exitCode === null && child.signalCode === null ? undefined : `exited (${child.exitCode ?? child.signalCode}):\n${lastLines(output, 20)}`),
    exited: () => exit,
    async stop() {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 10_000);
      const result = await exit;
      clearTimeout(timer);
      return result;
    },
  };
}

export async function openContainer(archive: string): Promise<ImageContainer> {
  const storage = await mkdtemp(join(tmpdir(), 'shop-image-test-'));
  trackTempDir(storage);
  const storageFlags = ['--root', join(storage, 'root'), '--runroot', join(storage, 'run'), '--storage-driver', 'vfs'];
  const buildah = (...args: string[]): Promise<string> => command('buildah', [...storageFlags, ...args]);
  const container = (await buildah('from', '--quiet', `oci-archive:${archive}`)).trim();
  const rootDir = (await buildah('mount', container)).trim();
  let runs = 0;
  const { OCIv1 } = JSON.parse(await buildah('inspect', container)) as { OCIv1: { config: ImageConfig } };
  const runArguments = (args: readonly string[], options: RunOptions): string[] => [
    ...storageFlags,
    'run',
    '--isolation',
    'chroot',
    ...Object.entries(options.env ?? {}).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
    ...(options.mounts ?? []).flatMap((mount) => ['--mount', mount]),
    container,
    '--',
    ...args,
  ];
  return {
    rootDir,
    config: OCIv1.config,
    start: (args, options = {}) => startProcess('buildah', runArguments(args, options)),
    async run(args, options = {}) {
      // buildah 1.28's chroot runtime now and then drops the output of a process that exits at once
      // (about 1 run in 15 here): the command writes its output to a file, read from the host.
      runs += 1;
      const outputFile = `${WRITABLE_DIR}/.run-output-${runs}`;
      const wrapped = ['/bin/sh', '-c', `exec "$@" > ${outputFile} 2>&1`, 'sh', ...args];
      const { code, output: buildahOutput } = await startProcess('buildah', runArguments(wrapped, options)).exited();
      const output = await readFile(join(rootDir, outputFile), 'utf8').catch(() => buildahOutput);
      await rm(join(rootDir, outputFile), { force: true });
      return { code, output };
    },
    async dispose() {
      await buildah('rm', container).catch(() => undefined);
      await rm(storage, { recursive: true, force: true });
      untrackTempDir(storage);
    },
  };
}
