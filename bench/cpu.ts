// CPU time of the processes a benchmark runs, from /proc (Linux): where the cores went during a phase.
import { readFile } from 'node:fs/promises';
import { allProcessStats, TICKS_PER_SECOND } from '../test/infra/proc-stat.ts';

/**
 * CPU seconds so far of each named process and its direct children (PostgreSQL's backends), and of
 * this process alone as `client` (its children are the servers, counted under their own names).
 */
export async function cpuSeconds(roots: Readonly<Record<string, number | undefined>>): Promise<Record<string, number>> {
  const all = await allProcessStats();
  const totals: Record<string, number> = {};
  for (const [name, root] of Object.entries(roots)) {
    totals[name] =
      root === undefined
        ? 0
        : all.filter((stat) => stat.pid === root || stat.ppid === root).reduce((sum, stat) => sum + stat.cpuSeconds, 0);
  }
  const self = process.cpuUsage();
  totals.client = (self.user + self.system) / 1e6;
  totals.machine = await machineBusySeconds();
  return totals;
}

/** Busy CPU seconds of the whole machine, every core and every process (the first line of /proc/stat). */
async function machineBusySeconds(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
  const [, ...ticks] = line.trim().split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks;
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

/** Each process's CPU over the phase in percent of one core (200 = two cores busy). */
export function cpuPercent(
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
  seconds: number,
): Record<string, number> {
  return Object.fromEntries(
    Object.keys(after).map((name) => [name, Math.round((((after[name] ?? 0) - (before[name] ?? 0)) / seconds) * 100)]),
  );
}
