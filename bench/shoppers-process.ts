// One phase of storefront shoppers in a process of its own: the worker benchmark runs Temporal
// activities on its own event loop, which would otherwise delay the shoppers' requests and answers
// and count as the storefront's latency. Prints one JSON object: the phase's result, the first
// failure of each operation, and the CPU this process used.
import { spawn } from 'node:child_process';
import { closedLoop, failures, graphqlClient, openLoop, type Catalog, type PhaseResult } from './shoppers.ts';

export interface ShoppersJob {
  readonly url: string;
  readonly catalog: Catalog;
  /** closed: `level` shoppers; open: `level` arrivals per second. */
  readonly mode: 'closed' | 'open';
  readonly level: number;
  readonly seconds: number;
  readonly seed?: number;
}

export interface ShoppersOutcome {
  readonly result: PhaseResult;
  readonly failures: Record<string, string>;
  readonly cpuSeconds: number;
}

/** Runs `job` in a child process and returns what it measured. */
export function runShoppers(job: ShoppersJob): Promise<ShoppersOutcome> {
  const child = spawn(process.execPath, [import.meta.filename, JSON.stringify(job)], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(output) as ShoppersOutcome);
      else reject(new Error(`the shoppers process exited with ${code}: ${output.slice(0, 500)}`));
    });
  });
}

if (process.argv[1] === import.meta.filename && process.argv[2] !== undefined) {
  const job = JSON.parse(process.argv[2]) as ShoppersJob;
  const client = graphqlClient(job.url);
  const result =
    job.mode === 'open'
      ? await openLoop(client, job.catalog, job.level, job.seconds, job.seed)
      : await closedLoop(client, job.catalog, job.level, job.seconds, job.seed);
  client.close();
  const cpu = process.cpuUsage();
  const outcome: ShoppersOutcome = { result, failures: Object.fromEntries(failures.first), cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  process.stdout.write(JSON.stringify(outcome));
}
