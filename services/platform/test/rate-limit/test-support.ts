// Shared by the rate-limit tests (not exported from @shop/platform).
import type { DestinationStream } from 'pino';
import { createLogger, type Logger } from '../../src/logging/logger.ts';

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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true or `timeoutMs` passes; resolves to the milliseconds it took. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 25): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await check()) return performance.now() - started;
    await sleep(intervalMs);
  }
  throw new Error(`not true within ${timeoutMs} ms`);
}
