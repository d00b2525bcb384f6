/**
 * The series names our own code registers with prom-client, read from registries filled by the same
 * functions the api, worker and consumer call at start (nothing is collected, so nothing is connected).
 */
import Fastify from 'fastify';
import pg from 'pg';
import type { Registry } from 'prom-client';
import { createLogger } from '@shop/runtime';
import { createMetricsRegistry, outboxMetrics, PrismaClient, RateLimitDecisions, workflowMetrics } from '@shop/platform';
import { PrismaPg } from '@prisma/adapter-pg';
import { registerPoolMetrics } from '../../../services/platform/src/db/pool-metrics.ts';
import { registerParkedDeliveriesGauge } from '../../../services/platform/src/outbox/outbox-metrics.ts';
import { MeasuredCache } from '../../../services/platform/src/cache/measured-cache.ts';
import { MemoryCache } from '../../../services/platform/src/cache/memory/memory-cache.ts';
import { consumerMetrics } from '../../../services/consumer/src/consumer-metrics.ts';
import { registerAdminSearchFreshness } from '../../../services/consumer/src/search-freshness.ts';
import { measureHttp } from '../../../services/api/src/http/http-metrics.ts';

const HISTOGRAM_SERIES = ['_bucket', '_sum', '_count'];

function seriesNames(registry: Registry): string[] {
  return registry.getMetricsAsArray().flatMap((metric) => {
    const { name, type } = metric as unknown as { name: string; type: string };
    return type === 'histogram' || type === 'summary' ? [name, ...HISTOGRAM_SERIES.map((suffix) => name + suffix)] : [name];
  });
}

export async function registeredSeriesNames(): Promise<Set<string>> {
  const registry = createMetricsRegistry('metric-names-test');
  const pool = new pg.Pool();
  const cache = new MeasuredCache(new MemoryCache(), registry);
  try {
    outboxMetrics(registry, pool);
    registerParkedDeliveriesGauge(registry, pool, []);
    registerPoolMetrics(registry, pool, 10);
    workflowMetrics(registry);
    consumerMetrics(registry);
    registerAdminSearchFreshness(registry, new PrismaClient({ adapter: new PrismaPg(pool) }), {
      adminSearch: undefined,
      storefrontSearch: undefined,
    });
    new RateLimitDecisions(registry, createLogger({ service: 'metric-names-test', level: 'ERROR' }));
    const app = Fastify();
    measureHttp(app, registry);
    await app.close();
    return new Set(seriesNames(registry));
  } finally {
    await Promise.all([pool.end(), cache.close()]);
  }
}
