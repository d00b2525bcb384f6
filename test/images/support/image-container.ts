// A working container of a built image's OCI archive, in buildah storage (vfs) of its own, run with
// chroot isolation: no daemon and no OCI runtime, and the processes share the host's network, so a
// server inside listens on the host's loopback. Commands run with the image's user, working
// directory and environment, as a container engine would start them.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { command } from '../../../images/build/command.ts';
import { WRITABLE_DIR } from '../../../images/contents.ts';
import { lastLines, trackTempDir, untrackTempDir } from '../../infra/proc.ts';

export interface RunOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** buildah `--mount` specifications, e.g. `type=bind,src=/host/dir,dst=/in/container`. */
  readonly mounts?: readonly string[];
  /** `uid[:gid]` instead of the image's user. */
  readonly user?: string;
  /** Instead of the image's working directory. */
  readonly workingDir?: string;
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
  /** SIGTERM to the command inside, SIGKILL to everything after 10 s; resolves once it has exited. */
  stop(): Promise<Exit>;
}

/** The parts of the image's OCI configuration the tests read. */
export interface ImageConfig {
  readonly User: string;
  readonly WorkingDir: string;
  readonly Entrypoint: string[];
  readonly Cmd?: string[];
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

/** Parent pid -> child pids, from /proc. */
async function processTree(): Promise<Map<number, number[]>> {
  const tree = new Map<number, number[]>();
  for (const entry of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after its last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    tree.set(parent, [...(tree.get(parent) ?? []), Number(entry)]);
  }
  return tree;
}

/**
 * The command buildah started: chroot isolation has no pid namespace, so it is a host process below
 * buildah, its chroot runtime and its exec helper (named `buildah…` or `memfd:buildah…`). Signalling
 * it, not buildah, lets the command shut down on its own; buildah then exits with the command's code.
 */
async function commandProcess(buildahPid: number): Promise<number | undefined> {
  const tree = await processTree();
  let pids = [buildahPid];
  while (pids.length > 0) {
    for (const pid of pids) {
      const name = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
      if (name !== '' && !name.includes('buildah')) return pid;
    }
    pids = pids.flatMap((pid) => tree.get(pid) ?? []);
  }
  return undefined;
}

function startProcess(program: string, args: readonly string[]): ContainerProcess {
  // Its own process group, so that a stuck run can be killed whole.
  const child: ChildProcess = spawn(program, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = once(child, 'close').then(([code]) => ({ code: code as number | null, output }));
  const signal = (pid: number, name: NodeJS.Signals): void => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  return {
    output: () => output,
    exitReason: () =>
      child.exitCode === null && child.signalCode === null
        ? undefined
        : `exited (${child.exitCode ?? child.signalCode}):\n${lastLines(output, 20)}`,
    exited: () => exit,
    async stop() {
      const pid = child.pid as number;
      signal((await commandProcess(pid)) ?? pid, 'SIGTERM');
      const timer = setTimeout(() => signal(-pid, 'SIGKILL'), 10_000);
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
    ...(options.user === undefined ? [] : ['--user', options.user]),
    ...(options.workingDir === undefined ? [] : ['--workingdir', options.workingDir]),
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
