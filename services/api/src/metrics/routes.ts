import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

/** GET /metrics: the process registry in Prometheus text format. */
export function metricsRoute(app: FastifyInstance, registry: Registry): void {
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
