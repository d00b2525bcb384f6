import type { FastifyInstance } from 'fastify';

/**
 * Probe and scrape routes (called every few seconds by machines) and beacons (one per impression)
 * are logged at DEBUG only; /track's own metrics count what it accepts and refuses.
 */
const QUIET_ROUTES = new Set(['/health', '/ready', '/metrics', '/track']);

/** One line per request, at INFO, once the response is sent. */
export function logEveryRequest(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const fields = {
      method: request.method,
      url: request.url,
      route,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      remote_address: request.ip,
    };
    if (route !== undefined && QUIET_ROUTES.has(route) && reply.statusCode < 500) request.log.debug(fields, 'request completed');
    else request.log.info(fields, 'request completed');
    done();
  });
}
