// A container's process the way a runtime starts it, with no runtime: in a mount namespace of its own
// (unshare), /proc, a fresh /dev with the usual devices, /sys read-only, the pod's bind mounts (its
// emptyDir volumes and its termination message file at /dev/termination-log), then chroot into the
// image's root filesystem as the pod's user, in its working directory, with only the image's and
// the pod's environment; in the pod's network namespace when given its `enter` words. buildah's chroot isolation cannot be used for
// this: it binds the host's /dev read-only over anything mounted below it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';
import type { ContainerProcess, Exit, ImageConfig, RunOptions } from '../../images/support/image-container.ts';
import { lastLines } from '../proc.ts';

const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/** What runs as root inside the new mount namespace before the chroot; $1 is the root, the rest mount specs. */
const SETUP = `
set -eu
root="$1"; shift
mount -t proc proc "$root/proc"
mount -t tmpfs -o mode=755,nosuid tmpfs "$root/dev"
for device in ${DEVICES.join(' ')}; do touch "$root/dev/$device"; mount --bind "/dev/$device" "$root/dev/$device"; done
ln -s /proc/self/fd "$root/dev/fd"
mkdir "$root/dev/shm" && mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"
mount --rbind /sys "$root/sys" && mount -o remount,bind,ro "$root/sys"
while [ "$1" != "--" ]; do
  # Resolved inside the root: /var/run is a link to /run there, which must not lead to the host's /run.
  source="$1"; target="$root$(chroot "$root" /usr/bin/realpath -m "$2")"; mode="$3"; shift 3
  if [ -d "$source" ]; then mkdir -p "$target"; else mkdir -p "$(dirname "$target")"; [ -e "$target" ] || touch "$target"; fi
  mount --bind "$source" "$target"
  if [ "$mode" = ro ]; then mount -o remount,bind,ro "$target"; fi
done
shift
exec "$@"
`;

interface BindMount {
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
}

/** buildah-style `type=bind,src=…,dst=…[,ro]` specifications, as RunOptions carries them. */
function parseMount(spec: string): BindMount {
  const fields = new Map(spec.split(',').map((part) => [part.split('=')[0] as string, part.split('=').slice(1).join('=')]));
  const source = fields.get('src');
  const target = fields.get('dst');
  if (fields.get('type') !== 'bind' || !source || !target)
    throw new Error(`the pod runtime mounts only type=bind with src and dst, not ${spec}`);
  return { source, target, readOnly: fields.has('ro') };
}

/** The image's environment with the container's on top, as the kubelet merges them. */
function environment(config: ImageConfig, env: Readonly<Record<string, string>>): string[] {
  const merged = new Map(config.Env.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
  for (const [name, value] of Object.entries(env)) merged.set(name, value);
  return [...merged].map(([name, value]) => `${name}=${value}`);
}

export function startInRoot(
  rootDir: string,
  config: ImageConfig,
  argv: readonly string[],
  options: RunOptions = {},
  enter: readonly string[] = [],
): ContainerProcess {
  const mounts = (options.mounts ?? []).map(parseMount).flatMap(({ source, target, readOnly }) => [source, target, readOnly ? 'ro' : 'rw']);
  const user = options.user ?? config.User;
  const workingDir = options.workingDir ?? (config.WorkingDir || '/');
  const inRoot = [
    'chroot',
    ...(user ? [`--userspec=${user}`] : []),
    rootDir,
    '/usr/bin/env',
    '-i',
    ...environment(config, options.env ?? {}),
    '/bin/sh',
    '-c',
    'cd "$1" && shift && exec "$@"',
    'sh',
    workingDir,
    ...argv,
  ];
  // Its own process group, so that a stuck process and whatever it started can be killed whole.
  const [command, ...args] = [
    ...enter,
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '/bin/sh',
    '-c',
    SETUP,
    'setup',
    rootDir,
    ...mounts,
    '--',
    ...inRoot,
  ] as [string, ...string[]];
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit: Promise<Exit> = once(child, 'close').then(([code, signal]) => ({
    code: (code as number | null) ?? (signal ? 128 + constants.signals[signal as NodeJS.Signals] : null),
    output,
  }));
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  return {
    output: () => output,
    exitReason: () => (ended() ? `exited (${child.exitCode ?? child.signalCode}):\n${lastLines(output, 20)}` : undefined),
    exited: () => exit,
    async stop() {
      const pid = child.pid as number;
      // The exec chain leaves the container's command as this very process: it gets SIGTERM first.
      signal(pid, 'SIGTERM');
      const timer = setTimeout(() => signal(-pid, 'SIGKILL'), 10_000);
      const result = await exit;
      clearTimeout(timer);
      signal(-pid, 'SIGKILL'); // anything it left behind in its group
      return result;
    },
  };
}
