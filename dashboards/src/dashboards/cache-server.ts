import { perSecond, SHOP, shopDashboard, stat, timeseries } from '../panels.ts';

export function cacheServerDashboard() {
  return shopDashboard(
    'shop-cache-server',
    'Shop / Cache server',
    'The Redis-compatible cache server itself: memory, connections and commands (redis_exporter).',
  )
    .withPanel(
      timeseries({
        title: 'Memory used',
        description:
          "Memory the cache holds, against its maxmemory limit (0: no limit, the machine's memory is). Used memory reaching the limit means evictions start (see App cache); without a limit, the cache is killed when memory runs out.",
        unit: 'bytes',
        queries: [
          { expr: `max(redis_memory_used_bytes{${SHOP}})`, legend: 'used' },
          { expr: `max(redis_memory_max_bytes{${SHOP}})`, legend: 'maxmemory' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Connected clients',
        description:
          'Client connections open to the cache, against its maxclients. Every api, worker and consumer process holds a few; a climb with a steady number of pods means connections leak.',
        unit: 'short',
        queries: [
          { expr: `max(redis_connected_clients{${SHOP}})`, legend: 'connected' },
          { expr: `max(redis_config_maxclients{${SHOP}})`, legend: 'maxclients' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Commands per second',
        description:
          'Commands the cache executes per second. It follows traffic; a jump without more traffic means a loop or a retry storm in a client.',
        unit: 'ops',
        queries: [{ expr: perSecond('redis_commands_processed_total'), legend: 'commands' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Rejected connections',
        description:
          'Connections per second the cache refused because maxclients was reached. Anything above zero means some process cannot reach the cache.',
        unit: 'ops',
        queries: [{ expr: perSecond('redis_rejected_connections_total'), legend: 'rejected' }],
      }),
    )
    .withPanel(
      stat({
        title: 'Cache reachable',
        description:
          '1 when redis_exporter reached the cache at its last scrape, 0 when it did not: then the cache is down or unreachable and every panel here is stale.',
        unit: 'bool',
        queries: [{ expr: `min(redis_up{${SHOP}})`, legend: 'up' }],
      }),
    );
}
