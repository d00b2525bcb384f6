import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** LOG_LEVEL's values, the spec's level names. */
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const PINO_LEVELS: Record<LogLevel, pino.Level> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
};

const LABELS: Record<string, string> = { trace: 'DEBUG', debug: 'DEBUG', info: 'INFO', warn: 'WARNING', error: 'ERROR', fatal: 'ERROR' };

export interface LoggerOptions {
  readonly level: LogLevel;
  readonly service: string;
  readonly destination?: pino.DestinationStream;
}

/** JSON lines on stdout, with the spec's level names (DEBUG, INFO, WARNING, ERROR). */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: PINO_LEVELS[options.level],
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: LABELS[label] ?? label.toUpperCase() }) },
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** A logger that writes nothing, for tests that only need one to pass. */
export function disabledLogger(): Logger {
  return pino({ enabled: false });
}
