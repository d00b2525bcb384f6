import { perSecond, shopDashboard, timeseries } from '../panels.ts';

export function appCacheDashboard() {
  return shopDashboard(
    'shop-app-cache',
    'Shop / App cache',
    'How well the cache serves the app: its operations as the api, worker and consumer see them, hits, misses and evictions on the cache server (redis_exporter), and the calls let through because the cache failed.',
  )
    .withPanel(
      timeseries({
        title: 'App cache operations',
        description:
          'Cache calls per second of the api, worker and consumer, by operation and result (get: hit or miss; setIfAbsent: stored or exists, e.g. a repeat click; error: the cache did not answer).',
        unit: 'ops',
        queries: [{ expr: perSecond('cache_operations_total', { by: 'operation, result' }), legend: '{{operation}} {{result}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'App cache errors',
        description:
          'Cache calls per second that failed, by operation. Above zero: the cache is unreachable or too slow; rate limits fail open and repeat clicks are decided by the database until it answers.',
        unit: 'ops',
        queries: [
          { expr: perSecond('cache_operations_total', { by: 'operation', matchers: ', result="error"' }), legend: '{{operation}}' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Server hit ratio',
        description:
          'Share of key lookups that found their key. A falling ratio means the app recomputes or refetches what it cached: keys evicted, expiring too early, or a new key scheme.',
        unit: 'percentunit',
        queries: [
          {
            expr: `${perSecond('redis_keyspace_hits_total')}\n  / (${perSecond('redis_keyspace_hits_total')} + ${perSecond('redis_keyspace_misses_total')})`,
            legend: 'hit ratio',
          },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Server hits and misses',
        description:
          'Key lookups per second that found (hit) or did not find (miss) their key. Misses rising with steady traffic mean cached data disappears before it is used.',
        unit: 'ops',
        queries: [
          { expr: perSecond('redis_keyspace_hits_total'), legend: 'hits' },
          { expr: perSecond('redis_keyspace_misses_total'), legend: 'misses' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Evictions and expirations',
        description:
          'Keys removed per second. Expirations are keys whose time to live ended, as intended. Any eviction means the cache hit its memory limit and dropped keys still in use: rate-limit buckets and sessions among them.',
        unit: 'ops',
        queries: [
          { expr: perSecond('redis_evicted_keys_total'), legend: 'evicted' },
          { expr: perSecond('redis_expired_keys_total'), legend: 'expired' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Rate-limit checks let through (cache failed)',
        description:
          'Rate-limit checks per second that the api let through because the cache did not answer (result fail_open), by policy. Above zero: the cache is unreachable or too slow, and rate limits are off until it answers.',
        unit: 'ops',
        queries: [
          { expr: perSecond('rate_limit_decisions_total', { by: 'policy', matchers: ', result="fail_open"' }), legend: '{{policy}}' },
        ],
      }),
    );
}
