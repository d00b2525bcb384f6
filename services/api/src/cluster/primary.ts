import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '@shop/platform';
import { answerMetricsRequests } from './cluster-metrics.ts';

export interface PrimaryOptions {
  readonly workers: number;
  readonly shutdownTimeoutMs: number;
  readonly logger: Logger;
}

/** A worker that exits on its own is replaced after this long. */
const RESTART_DELAY_MS = 1_000;
/** More unexpected exits than workers × this within CRASH_WINDOW_MS stop the pod: the orchestrator restarts it. */
const CRASHES_PER_WORKER = 3;
const CRASH_WINDOW_MS = 60_000;
/** After the workers' own shutdown timeout, how long before the primary kills those still running. */
const KILL_GRACE_MS = 5_000;

/**
 * API_WORKERS > 1: this process runs no api itself. It starts the workers (each the whole api on the
 * shared PORT), replaces one that exits, answers their requests for the pod's metrics, and on SIGTERM
 * passes it on and exits once every worker has finished its requests and written its buffers: 0 when
 * all stopped cleanly. SIGINT from a terminal reaches the workers directly (same process group), so
 * it is not passed on: a second signal would make a worker give up its graceful stop.
 */
export function runPrimary({ workers, shutdownTimeoutMs, logger }: PrimaryOptions): void {
  answerMetricsRequests();
  const crashes: number[] = [];
  let stopping = false;
  let exitCode = 0;

  const running = (): Worker[] => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
  const stop = (reason: string, code: number, forward: boolean) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    logger.info({ reason }, `stopping ${running().length} api workers`);
    if (forward) for (const worker of running()) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of running()) worker.process.kill('SIGKILL');
    }, shutdownTimeoutMs + KILL_GRACE_MS).unref();
    if (running().length === 0) process.exit(exitCode);
  };

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (code !== 0) exitCode = 1;
      if (running().length === 0) {
        logger.info('every api worker stopped');
        logger.flush();
        process.exit(exitCode);
      }
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while ((crashes[0] ?? now) < now - CRASH_WINDOW_MS) crashes.shift();
    if (crashes.length > workers * CRASHES_PER_WORKER) {
      logger.fatal({ crashes: crashes.length }, `api workers exited ${crashes.length} times in a minute; stopping`);
      stop('workers keep exiting', 1, true);
      return;
    }
    logger.error(
      { pid: worker.process.pid, code, signal },
      `api worker ${worker.process.pid} exited; starting another in ${RESTART_DELAY_MS} ms`,
    );
    setTimeout(() => {
      if (!stopping) cluster.fork();
    }, RESTART_DELAY_MS);
  });

  process.on('SIGTERM', () => stop('SIGTERM', 0, true));
  process.on('SIGINT', () => stop('SIGINT', 0, false));
  for (let i = 0; i < workers; i += 1) cluster.fork();
  logger.info({ workers }, `api primary ${process.pid} started ${workers} workers`);
}
