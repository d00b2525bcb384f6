import { THRESHOLDS } from '../../../alerts/src/thresholds.ts';
import { perSecond, SHOP, shopDashboard, timeseries } from '../panels.ts';

/** postgres_exporter reports every database of the server; the templates are not the Shop's. */
const serverPerSecond = (metric: string) => perSecond(metric, { matchers: ', datname!~"template.*"' });

export function databaseDashboard() {
  return shopDashboard(
    'shop-database',
    'Shop / Database',
    'Connections, transactions and queries: the pools of the api, worker and consumer processes (db_pool_*) and the PostgreSQL server (postgres_exporter).',
  )
    .withPanel(
      timeseries({
        title: 'Pool utilization',
        description:
          'Connections checked out of the pool over its size, for the busiest process of each service. Above the red line (80%) for 5 minutes fires DatabasePoolSaturated: soon queries will wait for a connection.',
        unit: 'percentunit',
        alertThreshold: THRESHOLDS.poolUtilization,
        queries: [
          { expr: `max by (service) (db_pool_connections_in_use{${SHOP}} / db_pool_connections_max{${SHOP}})`, legend: '{{service}}' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Queries waiting for a connection',
        description:
          'Queries waiting for a free pool connection, by service. Any wait for 2 minutes fires DatabasePoolExhausted: the pool is exhausted and requests slow down or time out.',
        unit: 'short',
        // The alert fires at any waiting query; the counts are whole numbers, so red starts at 1.
        alertThreshold: 1,
        queries: [{ expr: `sum by (service) (db_pool_requests_waiting{${SHOP}})`, legend: '{{service}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Server connections',
        description:
          'Connections open on the PostgreSQL server over its max_connections. Above the red line (90%) for 5 minutes fires DatabaseConnectionsExhausted: new connections are about to be refused, for every client of the server.',
        unit: 'percentunit',
        alertThreshold: THRESHOLDS.databaseConnectionRatio,
        queries: [
          { expr: `sum(pg_stat_database_numbackends{${SHOP}}) / max(pg_settings_max_connections{${SHOP}})`, legend: 'of max_connections' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Server connections by state',
        description:
          'Server connections by state. Many "idle in transaction" connections hold locks and connections while doing nothing: a client forgot to commit.',
        unit: 'short',
        queries: [{ expr: `sum by (state) (pg_stat_activity_count{${SHOP}})`, legend: '{{state}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Transactions per second',
        description:
          'Committed and rolled back transactions per second. Rollbacks rising against commits mean failing writes: look at the api errors and the logs.',
        unit: 'ops',
        queries: [
          { expr: serverPerSecond('pg_stat_database_xact_commit'), legend: 'commit' },
          { expr: serverPerSecond('pg_stat_database_xact_rollback'), legend: 'rollback' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Rows read and written',
        description:
          'Rows the queries returned, fetched by index, inserted, updated and deleted per second. Rows returned far above rows fetched mean sequential scans: a missing index or an unbounded query.',
        unit: 'suffix: rows/s',
        queries: [
          { expr: serverPerSecond('pg_stat_database_tup_returned'), legend: 'returned' },
          { expr: serverPerSecond('pg_stat_database_tup_fetched'), legend: 'fetched' },
          { expr: serverPerSecond('pg_stat_database_tup_inserted'), legend: 'inserted' },
          { expr: serverPerSecond('pg_stat_database_tup_updated'), legend: 'updated' },
          { expr: serverPerSecond('pg_stat_database_tup_deleted'), legend: 'deleted' },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Deadlocks',
        description:
          'Deadlocks PostgreSQL detected per second; each aborted a transaction. Anything above zero means two code paths lock the same rows in opposite orders.',
        unit: 'ops',
        queries: [{ expr: serverPerSecond('pg_stat_database_deadlocks'), legend: 'deadlocks' }],
      }),
    );
}
