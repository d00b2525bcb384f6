import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Label for every path no route matches, so scanners cannot create unbounded label values. */
export const UNMATCHED_ROUTE = 'unmatched';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SIZE_BUCKETS = [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}

/** The four http_* metrics of the spec, labelled by method, route pattern and status code. */
export function measureHttp(app: FastifyInstance, registry: Registry): void {
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent',
    labelNames: ['method', 'route', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const inProgress = new Gauge({
    name: 'http_requests_inprogress',
    help: 'HTTP requests being handled',
    labelNames: ['method', 'route'],
    registers: [registry],
  });
  const responseSize = new Histogram({
    name: 'http_response_size_bytes',
    help: 'Size of response bodies',
    labelNames: ['method', 'route', 'status'],
    buckets: SIZE_BUCKETS,
    registers: [registry],
  });

  app.addHook('onRequest', async (request) => {
    inProgress.inc({ method: request.method, route: routeOf(request) });
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = routeOf(request);
    const labels = { method: request.method, route, status: reply.statusCode };
    inProgress.dec({ method: request.method, route });
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    responseSize.observe(labels, Number(reply.getHeader('content-length') ?? 0));
  });
}
