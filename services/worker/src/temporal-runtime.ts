import { createServer } from 'node:net';
import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger } from '@shop/platform';

/** The SDK's logs (and the Rust core's, forwarded) through the process's pino logger. */
function sdkLogger(logger: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const fields = { ...meta, sdk: 'temporal' };
    if (level === 'ERROR') logger.error(fields, message);
    else if (level === 'WARN') logger.warn(fields, message);
    else if (level === 'INFO') logger.info(fields, message);
    else logger.debug(fields, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/** A loopback port nobody listens on right now. */
async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no loopback port for the Temporal metrics exporter');
  return address.port;
}

export interface InstalledRuntime {
  /** The SDK's metrics in Prometheus text (workflow and activity completions, failures, latencies, schedule-to-start). */
  metrics(): Promise<string>;
}

/**
 * Installs the SDK's runtime once per process, before any connection: its metrics go to an exporter
 * on a private loopback port that the worker's /metrics reads and appends, so one scrape gets both.
 * Signals stay ours: the process stops the worker itself, within SHUTDOWN_TIMEOUT_MS.
 */
export async function installTemporalRuntime(logger: Logger): Promise<InstalledRuntime> {
  const bindAddress = `127.0.0.1:${await freeLoopbackPort()}`;
  Runtime.install({
    logger: sdkLogger(logger),
    shutdownSignals: [],
    telemetryOptions: {
      logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
      metrics: { prometheus: { bindAddress, countersTotalSuffix: true, useSecondsForDurations: true } },
    },
  });
  return {
    async metrics() {
      try {
        const response = await fetch(`http://${bindAddress}/metrics`, { signal: AbortSignal.timeout(2_000) });
        return response.ok ? await response.text() : '';
      } catch (error) {
        logger.warn({ err: error }, 'the Temporal SDK metrics could not be read');
        return '';
      }
    },
  };
}
