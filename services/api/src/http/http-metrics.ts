import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { METRICS_PATH } from './metrics-route.ts';

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

type ByStatus = 'method' | 'route' | 'status';

/** The labelled children of one method and route: resolved once, then reused by every request of it. */
interface RouteMetrics {
  readonly inProgress: Gauge.Internal<'method' | 'route'>;
  readonly byStatus: Map<
    number,
    { requests: Counter.Internal; duration: Histogram.Internal<ByStatus>; size: Histogram.Internal<ByStatus> }
  >;
  readonly method: string;
  readonly route: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The http_* children of the request's method and route, from onRequest to onResponse. */
    httpMetrics: RouteMetrics | null;
  }
}

/**
 * The four http_* metrics of the spec, labelled by method, route pattern and status code; Prometheus's
 * own scrapes are left out, or the scrape's body (about 100 KB) would set the scale of the size panel. The
 * labelled children are cached per label set: resolving labels on every request is the costliest
 * part of recording them, and the set is small (routes are patterns, unknown paths share one label).
 * The route is looked up once per request (request.routeOptions builds a new object at every read).
 */
export function measureHttp(app: FastifyInstance, registry: Registry): void {
  const metrics = httpMetrics(registry);
  const byRoute = new Map<string, RouteMetrics>();

  const routeMetrics = (method: string, route: string): RouteMetrics => {
    const key = `${method} ${route}`;
    let found = byRoute.get(key);
    if (found === undefined)
      byRoute.set(key, (found = { inProgress: metrics.inProgress.labels(method, route), byStatus: new Map(), method, route }));
    return found;
  };
  const completed = (route: RouteMetrics, status: number) => {
    let children = route.byStatus.get(status);
    if (children === undefined) {
      const labels = [route.method, route.route, String(status)] as const;
      children = {
        requests: metrics.requests.labels(...labels),
        duration: metrics.duration.labels(...labels),
        size: metrics.responseSize.labels(...labels),
      };
      route.byStatus.set(status, children);
    }
    return children;
  };

  app.decorateRequest('httpMetrics', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const path = routeOf(request);
    if (path !== METRICS_PATH) {
      const route = routeMetrics(request.method, path);
      request.httpMetrics = route;
      route.inProgress.inc();
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    let route = request.httpMetrics;
    if (route === null) {
      // A scrape, or a request refused before onRequest ran (e.g. a malformed URL), which has none yet.
      const path = routeOf(request);
      if (path === METRICS_PATH) return done();
      route = routeMetrics(request.method, path);
    } else {
      route.inProgress.dec();
    }
    const children = completed(route, reply.statusCode);
    children.requests.inc();
    children.duration.observe(reply.elapsedTime / 1000);
    children.size.observe(Number(reply.getHeader('content-length') ?? 0));
    done();
  });
}
