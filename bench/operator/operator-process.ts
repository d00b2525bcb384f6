// The operator as `npm run operator` runs it, in its own process, and what /proc says of it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { TestCluster } from '../../operator/test/support/test-cluster.ts';

const OPERATOR_MAIN = new URL('../../operator/src/main.ts', import.meta.url).pathname;
const START_TIMEOUT_MS = 60_000;

export interface OperatorProcess {
  readonly pid: number;
  readonly metricsPort: number;
  /** The Node flags it runs with (it starts again with the container's heap outside a container) and V8's heap limit. */
  readonly heap: { readonly nodeFlags: string; readonly limitMb: number };
  /** WARNING and ERROR lines it logged (e.g. failed passes). */
  warnings(): string[];
  /** Set once the process exited before stop(). */
  failure(): Error | undefined;
  stop(): Promise<void>;
}

export async function startOperatorProcess(cluster: TestCluster): Promise<OperatorProcess> {
  const env = {
    PATH: process.env.PATH ?? '',
    KUBECONFIG: cluster.server.kubeconfigPath(),
    METRICS_PORT: '0',
    LEADER_ELECTION: 'false',
    POD_NAME: 'bench-operator',
  };
  // BENCH_OPERATOR_NODE_ARGS: Node flags for the operator only, e.g. `--max-old-space-size=64` or `--trace-gc`.
  const nodeArgs = (process.env.BENCH_OPERATOR_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, OPERATOR_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = once(child, 'exit');
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const warnings: string[] = [];
  let stopping = false;
  let failure: Error | undefined;
  void exit.then(([code, signal]) => {
    if (!stopping) failure = new Error(`the operator exited (${code ?? signal}): ${stderr}`);
  });
  const lastLines: string[] = [];
  const started = new Promise<Pick<OperatorProcess, 'metricsPort' | 'heap'>>((resolve, reject) => {
    // Without a deadline a missed line would wait forever, printing nothing (it did, when the log's
    // message key changed from `message` to pino's `msg`).
    const deadline = setTimeout(() => {
      reject(
        new Error(
          `the operator logged no "started" line within ${START_TIMEOUT_MS / 1000} s; its last output:\n${[...lastLines, stderr].join('\n')}`,
        ),
      );
    }, START_TIMEOUT_MS);
    void exit.then(() => clearTimeout(deadline));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lastLines.push(line);
      if (lastLines.length > 20) lastLines.shift();
      let entry: { level?: string; msg?: string; metricsPort?: number; nodeFlags?: string; heapLimitMb?: number };
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.msg === 'started' && typeof entry.metricsPort === 'number') {
        clearTimeout(deadline);
        resolve({ metricsPort: entry.metricsPort, heap: { nodeFlags: entry.nodeFlags ?? '', limitMb: entry.heapLimitMb ?? Number.NaN } });
      }
      if (entry.level !== 'INFO') warnings.push(line);
    });
    void exit.then(([code, signal]) => reject(new Error(`the operator exited (${code ?? signal}) before it started: ${stderr}`)));
  });
  const stop = async () => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(killer);
  };
  try {
    return {
      pid: child.pid as number,
      ...(await started),
      warnings: () => [...warnings, ...(stderr ? [stderr] : [])],
      failure: () => failure,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** VmHWM (peak resident set) and VmRSS of a process, in MB. */
export async function memoryMb(pid: number): Promise<{ peak: number; now: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
  return { peak: Math.round(kb('VmHWM') / 1024), now: Math.round(kb('VmRSS') / 1024) };
}

/** Sockets the process holds open: one per connection to the API server, plus its listeners. */
export async function openSockets(pid: number): Promise<number> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return links.filter((link) => link.startsWith('socket:')).length;
}
