import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { apiDashboard } from './dashboards/api.ts';
import { appCacheDashboard } from './dashboards/app-cache.ts';
import { brokerDashboard } from './dashboards/broker.ts';
import { cacheServerDashboard } from './dashboards/cache-server.ts';
import { databaseDashboard } from './dashboards/database.ts';
import { workflowsDashboard } from './dashboards/workflows.ts';

/** The six dashboards of spec section 1, in the order the README lists them. */
export function buildDashboards(): Dashboard[] {
  return [apiDashboard(), appCacheDashboard(), databaseDashboard(), cacheServerDashboard(), brokerDashboard(), workflowsDashboard()].map(
    (builder) => builder.build(),
  );
}
