import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALERT_RULES } from '../../alerts/src/alert-rules.ts';
import { buildDashboards } from '../src/dashboards.ts';
import { dashboardFile, JSON_DIR, renderDashboard } from '../src/generate-dashboards.ts';
import { panelExpressions, panelsOf } from './support/expressions.ts';

const dashboards = buildDashboards();
const SHOP_SCOPE = 'namespace="$namespace", shop="$shop"';
// The Temporal server's series belong to a Temporal namespace, not to a Shop.
const TEMPORAL_SCOPE = 'namespace="$temporal_namespace"';

describe('the dashboards', () => {
  it('are the six of the spec, and the committed JSON is what npm run dashboards:generate writes', async () => {
    expect(dashboards.map((dashboard) => dashboard.uid)).toEqual([
      'shop-api',
      'shop-app-cache',
      'shop-database',
      'shop-cache-server',
      'shop-broker',
      'shop-workflows',
    ]);
    expect((await readdir(JSON_DIR)).sort()).toEqual(dashboards.map((dashboard) => `${dashboard.uid}.json`).sort());
    for (const dashboard of dashboards) expect(await readFile(dashboardFile(dashboard), 'utf8')).toBe(renderDashboard(dashboard));
  });

  it('each lets the viewer pick the Prometheus datasource, the namespace and the Shop', () => {
    for (const dashboard of dashboards) {
      expect(dashboard.templating?.list?.slice(0, 3).map((variable) => variable.name)).toEqual(['datasource', 'namespace', 'shop']);
    }
  });

  it('every panel has a description, a unit and queries scoped to the Shop picked', () => {
    for (const dashboard of dashboards) {
      for (const panel of panelsOf(dashboard)) {
        const where = `${dashboard.uid} "${panel.title}"`;
        // Short: what the figure is and what a bad value means, in a sentence or three.
        expect(panel.description?.length ?? 0, where).toBeGreaterThan(60);
        expect(panel.description?.length ?? 0, where).toBeLessThanOrEqual(300);
        expect(panel.fieldConfig?.defaults.unit, where).toBeTruthy();
        const expressions = panelExpressions(panel);
        expect(expressions.length, where).toBeGreaterThan(0);
        for (const expr of expressions) expect(expr.includes(SHOP_SCOPE) || expr.includes(TEMPORAL_SCOPE), `${where}: ${expr}`).toBe(true);
      }
    }
  });

  it('a panel turns red where an alert that points at it fires', () => {
    for (const dashboard of dashboards) {
      for (const panel of panelsOf(dashboard)) {
        const red = panel.fieldConfig?.defaults.thresholds?.steps.filter((step) => step.color === 'red') ?? [];
        const alerts = ALERT_RULES.filter((rule) => rule.panel.dashboard === dashboard.uid && rule.panel.title === panel.title);
        for (const step of red) {
          const firesAt = alerts.filter((rule) => new RegExp(`>=? ${String(step.value).replace('.', '\\.')}$`).test(rule.expr));
          expect(
            firesAt.map((rule) => rule.alert),
            `${dashboard.uid} "${panel.title}" red at ${step.value}`,
          ).not.toEqual([]);
        }
      }
    }
  });

  it('the README lists every panel', async () => {
    const readme = await readFile(path.join(JSON_DIR, '../README.md'), 'utf8');
    for (const dashboard of dashboards) {
      for (const panel of panelsOf(dashboard))
        expect(readme, `${dashboard.uid} "${panel.title}"`).toContain(`\n| ${panel.title} | \`${panel.fieldConfig?.defaults.unit}\` |`);
    }
  });

  it('every alert points at a panel that exists', () => {
    const panels = new Set(dashboards.flatMap((dashboard) => panelsOf(dashboard).map((panel) => `${dashboard.uid} ${panel.title}`)));
    expect(ALERT_RULES.map((rule) => `${rule.panel.dashboard} ${rule.panel.title}`).filter((panel) => !panels.has(panel))).toEqual([]);
  });
});
