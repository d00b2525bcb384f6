// CPU time of the processes a benchmark runs, from /proc (Linux): where the cores went during a phase.
import { readFile, readdir } from 'node:fs/promises';

/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat, 100 on every mainstream Linux. */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly cpuSeconds: number;
}

async function procStat(pid: number): Promise<ProcStat | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state ppid ... utime is the 12th field, stime the 13th.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
  } catch {
    return undefined; // exited
  }
}

/**
 * CPU seconds so far of each named process and its direct children (PostgreSQL's backends), and of
 * this process alone as `client` (its children are the servers, counted under their own names).
 */
export async function cpuSeconds(roots: Readonly<Record<string, number | undefined>>): Promise<Record<string, number>> {
  const entries = await readdir('/proc');
  const all = (await Promise.all(entries.filter((entry) => /^\d+$/.test(entry)).map((entry) => procStat(Number(entry))))).filter(
    (stat): stat is ProcStat => stat !== undefined,
  );
  const totals: Record<string, number> = {};
  for (const [name, root] of Object.entries(roots)) {
    totals[name] = root === undefined ? 0 : all.filter((stat) => stat.pid === root || stat.ppid === root).reduce((sum, stat) => sum + stat.cpuSeconds, 0);
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
export function cpuPercent(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>, seconds: number): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((name) => [name, Math.round((((after[name] ?? 0) - (before[name] ?? 0)) / seconds) * 100)]));
}
