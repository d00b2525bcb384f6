import closeWithGrace from 'close-with-grace';
import type { Logger } from '@shop/runtime';

export interface GracefulStopOptions {
  readonly logger: Logger;
  /** How long the stop may take before the process exits anyway. */
  readonly timeoutMs: number;
  /** Logged when a signal starts the stop, e.g. what the process still finishes. */
  readonly stoppingMessage: string;
}

export interface GracefulStop {
  /** Stops (once, however often called), then exits with `code`: for a process that cannot go on. */
  exitAfterStopping(code: number): Promise<void>;
}

/**
 * A service process's stop: on SIGTERM or SIGINT (or an unhandled error) `stop` runs once, within
 * `timeoutMs`, and the process exits; `exitAfterStopping` runs the same stop for a fatal condition
 * the process found itself, and exits with its code.
 */
export function gracefulStop(options: GracefulStopOptions, stop: () => Promise<void>): GracefulStop {
  const { logger, timeoutMs } = options;
  let stopping: Promise<void> | undefined;
  const stopOnce = () => (stopping ??= stop());

  const grace = closeWithGrace({ delay: timeoutMs }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'stopping after an unhandled error');
    else logger.info({ signal }, options.stoppingMessage);
    await stopOnce();
    logger.info('stopped');
    logger.flush();
  });

  return {
    async exitAfterStopping(code) {
      grace.uninstall();
      setTimeout(() => process.exit(code), timeoutMs).unref();
      await stopOnce().catch((error: unknown) => logger.warn({ err: error }, 'the process did not stop cleanly'));
      logger.flush();
      process.exit(code);
    },
  };
}
