import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/**
 * Probe and scrape routes (called every few seconds by machines) and beacons (one per impression)
 * are logged at DEBUG only; /track's own metrics count what it accepts and refuses.
 */
const QUIET_ROUTES = new Set(['/health', '/ready', '/serving', '/metrics', '/track']);

/** Whether a line at `level` would be written (pino loggers say; any other logger is asked to write). */
const enabled = (log: FastifyBaseLogger, level: 'info' | 'debug'): boolean =>
  (log as Partial<{ isLevelEnabled(level: string): boolean }>).isLevelEnabled?.(level) ?? true;

/**
 * One line per request, at INFO, once the response is sent. Nothing is computed for a line the
 * level would drop (a beacon at INFO, anything at WARNING or ERROR). The URL is logged without its
 * query string: a GraphQL GET carries its variables there (emails, passwords), others tokens.
 */
export function logEveryRequest(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const log = request.log;
    if (!enabled(log, 'info')) return done();
    const route = request.routeOptions.url;
    const quiet = route !== undefined && QUIET_ROUTES.has(route) && reply.statusCode < 500;
    if (quiet && !enabled(log, 'debug')) return done();
    const fields = {
      method: request.method,
      url: request.url.split('?', 1)[0],
      route,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      remote_address: request.ip,
    };
    if (quiet) log.debug(fields, 'request completed');
    else log.info(fields, 'request completed');
    done();
  });
}
