import { totalmem } from 'node:os';

/**
 * The V8 heap the operator runs with when no container limits its memory.
 *
 * Node sizes V8's heap from the container's memory limit (cgroups) or, without one, from the host's
 * RAM. In the chart's Deployment (256 MiB) that is a 256 MB old space and 1 MB semi-spaces. On a host
 * with 24 GB and no limit (a laptop, CI, the benchmark) it is a 4 GB old space, which V8 lets grow
 * far past its live size before a full collection, and 16 MB semi-spaces (48 MB of young generation):
 * reconciling 50 Shops, the operator's peak RSS was 320 to 360 MB there, nearly all of it garbage
 * not collected yet, for a live heap of about 50 MB. With these flags it was about 175 MB.
 *
 * The old space is the Deployment's. The semi-spaces are 2 MB rather than its 1 MB: half as many
 * scavenges (about 290 instead of 590 over the benchmark, measured), for the same peak.
 */
export const CONTAINER_HEAP_FLAGS: readonly string[] = ['--max-old-space-size=256', '--max-semi-space-size=2'];

/** Flags by which whoever starts the operator chooses its heap; with any of them it is left alone. */
const HEAP_SIZE_FLAGS = [
  '--max-old-space-size',
  '--max-old-space-size-percentage',
  '--max-semi-space-size',
  '--min-semi-space-size',
  '--max-heap-size',
  '--initial-heap-size',
  '--optimize-for-size',
];

export interface NodeStart {
  /** process.execArgv */
  readonly execArgv: readonly string[];
  /** The NODE_OPTIONS variable. */
  readonly nodeOptions: string | undefined;
  /** process.constrainedMemory(): the container's limit in bytes; 0, or more than the host has, without one. */
  readonly constrainedMemory: number;
  /** os.totalmem() */
  readonly totalMemory: number;
}

/** The flags to start Node again with, or none: inside a container, or when the heap was chosen already. */
export function heapFlagsToAdd(start: NodeStart): string[] {
  if (start.constrainedMemory > 0 && start.constrainedMemory < start.totalMemory) return [];
  const given = [...start.execArgv, ...(start.nodeOptions ?? '').split(/\s+/)].map((arg) => arg.split('=')[0]?.replaceAll('_', '-'));
  if (
    given.some((name) => name !== undefined && (HEAP_SIZE_FLAGS.includes(name) || HEAP_SIZE_FLAGS.includes(name.replace(/^--no-/, '--'))))
  )
    return [];
  return [...CONTAINER_HEAP_FLAGS];
}

/**
 * Replaces this process (same PID, same standard streams, same environment) with Node started with
 * CONTAINER_HEAP_FLAGS, when heapFlagsToAdd() says so. Call it before importing anything large: what
 * was loaded is discarded. Returns when there is nothing to add (or where execve is not available).
 */
export function restartWithContainerHeap(): void {
  const flags = heapFlagsToAdd({
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
    constrainedMemory: process.constrainedMemory(),
    totalMemory: totalmem(),
  });
  if (flags.length === 0 || process.execve === undefined) return;
  try {
    process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], process.env);
  } catch (error) {
    process.stderr.write(
      `could not start again with ${flags.join(' ')}, going on with the default heap: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}
