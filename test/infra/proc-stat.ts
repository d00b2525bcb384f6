// Processes as Linux's /proc shows them: parent and CPU time, for benchmarks and process tests.
import { readFile, readdir } from 'node:fs/promises';

/** USER_HZ: the unit of the times in /proc/<pid>/stat, 100 on every mainstream Linux. */
export const TICKS_PER_SECOND = 100;

export interface ProcessStat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime: CPU the process itself used. */
  readonly cpuSeconds: number;
  /** cutime + cstime: CPU of the children it has reaped (exited PostgreSQL backends, say). */
  readonly reapedCpuSeconds: number;
}

/** One process, or undefined once it has exited. */
export async function processStat(pid: number): Promise<ProcessStat | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state ppid …; utime, stime, cutime and cstime are the 12th to 15th fields.
    const fields = text
      .slice(text.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const seconds = (index: number) => (fields[index] ?? 0) / TICKS_PER_SECOND;
    return { pid, ppid: fields[1] ?? 0, cpuSeconds: seconds(11) + seconds(12), reapedCpuSeconds: seconds(13) + seconds(14) };
  } catch {
    return undefined;
  }
}

/** Every live process. */
export async function allProcessStats(): Promise<ProcessStat[]> {
  const pids = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const stats = await Promise.all(pids.map(processStat));
  return stats.filter((stat): stat is ProcessStat => stat !== undefined);
}
