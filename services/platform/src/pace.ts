import { setTimeout as sleep } from 'node:timers/promises';

/** The time a paced loop goes by; tests give one of their own to see the sleeps. */
export interface PaceClock {
  /** Milliseconds, monotonic. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: PaceClock = { now: () => performance.now(), sleep: (ms) => sleep(ms) };

/**
 * Sleeps until a step of `rows` rows that started at `startedAt` (clock.now()) has taken its share of
 * time at `rowsPerSecond`, so a loop of such steps keeps to the rate: a backlog then leaves the cores
 * to the storefront instead of taking them in one burst. A rate of 0 does not pace.
 */
export async function keepPace(rowsPerSecond: number, rows: number, startedAt: number, clock: PaceClock = realClock): Promise<void> {
  if (rowsPerSecond === 0) return;
  await clock.sleep(Math.max(0, (rows * 1000) / rowsPerSecond - (clock.now() - startedAt)));
}
