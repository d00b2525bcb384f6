/** One JSON object per line on stdout (errors on stderr), the shape log collectors expect. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type Level = 'INFO' | 'WARNING' | 'ERROR';

export function jsonLogger(base: Record<string, unknown> = {}): Logger {
  const write = (level: Level, message: string, fields: Record<string, unknown> = {}): void => {
    const line = JSON.stringify({ time: new Date().toISOString(), level, ...base, message, ...fields }, errorsAsText);
    (level === 'ERROR' ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return {
    info: (message, fields) => write('INFO', message, fields),
    warn: (message, fields) => write('WARNING', message, fields),
    error: (message, fields) => write('ERROR', message, fields),
  };
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}
