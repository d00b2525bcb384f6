import { Gauge, type Registry } from 'prom-client';
import type { Pool } from 'pg';

/** Pool statistics, read at scrape time: the spec's "connection pool utilization < 80%" target. */
export function registerPoolMetrics(registry: Registry, pool: Pool, maxConnections: number): void {
  const gauges: Array<[string, string, () => number]> = [
    ['db_pool_connections_in_use', 'Connections checked out of the pool', () => pool.totalCount - pool.idleCount],
    ['db_pool_connections_idle', 'Open connections waiting in the pool', () => pool.idleCount],
    ['db_pool_requests_waiting', 'Queries waiting for a free connection', () => pool.waitingCount],
    ['db_pool_connections_max', 'Largest number of connections the pool opens', () => maxConnections],
  ];
  for (const [name, help, read] of gauges) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  }
}
