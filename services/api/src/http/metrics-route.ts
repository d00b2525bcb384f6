import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { clusterMetricsReader } from '../cluster/cluster-metrics.ts';

/** Where Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

/** GET /metrics in Prometheus text format: this process's registry, or in a cluster worker the whole pod's. */
export function metricsRoute(app: FastifyInstance, registry: Registry): void {
  const read = cluster.isWorker ? clusterMetricsReader(registry) : () => registry.metrics();
  app.get(METRICS_PATH, async (request, reply) => {
    try {
      const text = await read();
      return await reply.header('content-type', registry.contentType).send(text);
    } catch (error) {
      request.log.warn({ err: error }, 'metrics unavailable');
      return reply.code(503).send({ error: 'METRICS_UNAVAILABLE', message: (error as Error).message });
    }
  });
}
