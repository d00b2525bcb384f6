import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Label for every path no route matches, so scanners cannot create unbounded label values. */
export const UNMATCHED_ROUTE = 'unmatched';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SIZE_BUCKETS = [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}

function httpMetrics(registry: Registry) {
  const registers = [registry];
  const byStatus = ['method', 'route', 'status'] as const;
  return {
    requests: new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames: byStatus, registers }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request received to response sent',
      labelNames: byStatus,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    inProgress: new Gauge({
      name: 'http_requests_inprogress',
      help: 'HTTP requests being handled',
      labelNames: ['method', 'route'] as const,
      registers,
    }),
    responseSize: new Histogram({
      name: 'http_response_size_bytes',
      help: 'Size of response bodies',
      labelNames: byStatus,
      buckets: SIZE_BUCKETS,
      registers,
    }),
  };
}

/**
 * The four http_* metrics of the spec, labelled by method, route pattern and status code. The
 * labelled children are cached per label set: resolving labels on every request is the costliest
 * part of recording them, and the set is small (routes are patterns, unknown paths share one label).
 */
export function measureHttp(app: FastifyInstance, registry: Registry): void {
  const metrics = httpMetrics(registry);
  const inProgressBy = new Map<string, Gauge.Internal<'method' | 'route'>>();
  type ByStatus = 'method' | 'route' | 'status';
  const completedBy = new Map<string, { requests: Counter.Internal; duration: Histogram.Internal<ByStatus>; size: Histogram.Internal<ByStatus> }>();

  const inProgress = (method: string, route: string) => {
    const key = `${method} ${route}`;
    let child = inProgressBy.get(key);
    if (child === undefined) inProgressBy.set(key, (child = metrics.inProgress.labels(method, route)));
    return child;
  };
  const completed = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let children = completedBy.get(key);
    if (children === undefined) {
      const labels = [method, route, String(status)] as const;
      children = {
        requests: metrics.requests.labels(...labels),
        duration: metrics.duration.labels(...labels),
        size: metrics.responseSize.labels(...labels),
      };
      completedBy.set(key, children);
    }
    return children;
  };

  app.addHook('onRequest', (request, _reply, done) => {
    inProgress(request.method, routeOf(request)).inc();
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    inProgress(request.method, route).dec();
    const children = completed(request.method, route, reply.statusCode);
    children.requests.inc();
    children.duration.observe(reply.elapsedTime / 1000);
    children.size.observe(Number(reply.getHeader('content-length') ?? 0));
    done();
  });
}
