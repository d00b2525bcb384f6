// Shared by the rate-limit tests (not exported from @shop/platform).
import type { DestinationStream } from 'pino';
import { createLogger, type Logger } from '@shop/runtime';

export interface LogLine {
  readonly level: string;
  readonly msg: string;
}

/** A real logger whose JSON lines are kept for assertions. */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination: DestinationStream = { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) };
  return { logger: createLogger({ level: 'INFO', service: 'test', destination }), lines };
}
