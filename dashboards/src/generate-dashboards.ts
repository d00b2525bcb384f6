/**
 * Writes each dashboard of dashboards.ts as Grafana JSON, dashboards/json/<uid>.json: `npm run
 * dashboards:generate`. A test fails when a committed file is stale.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { buildDashboards } from './dashboards.ts';

export const JSON_DIR = path.resolve(import.meta.dirname, '../json');

export function dashboardFile(dashboard: Dashboard): string {
  return path.join(JSON_DIR, `${dashboard.uid}.json`);
}

export function renderDashboard(dashboard: Dashboard): string {
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

if (import.meta.main) {
  await mkdir(JSON_DIR, { recursive: true });
  for (const dashboard of buildDashboards()) {
    await writeFile(dashboardFile(dashboard), renderDashboard(dashboard));
    process.stdout.write(`wrote ${path.relative(process.cwd(), dashboardFile(dashboard))}\n`);
  }
}
