import type { KubeObject } from '@shop/cdk8s';
import type { StoredShop } from '../shop-resource.ts';
import { generatedRuleGroups, type AlertRule } from './monitoring-files.ts';
import { monitoringLabels, shopSeriesLabels } from './monitoring-labels.ts';
import { dropsLabel, scopeSelectors } from './promql-scope.ts';
import { withRunbookBaseUrl } from './runbook-urls.ts';

export const MONITORING_API_VERSION = 'monitoring.coreos.com/v1';

export const prometheusRuleName = (shop: StoredShop): string => `${shop.metadata.name}-alerts`;

/**
 * Whether a rule speaks for one Shop: those on the shared Temporal server group by its task queues
 * and drop the shop label, so every Shop would raise the same alert.
 */
export const isShopRule = (rule: AlertRule): boolean => !dropsLabel(rule.expr, 'shop');

/**
 * The Shop's alert rules as a PrometheusRule: every expression selects only the Shop's series, so one
 * Prometheus can hold the rules of many Shops without one Shop's alert firing for another's. Their
 * runbook_url is under `baseUrl` (the operator's RUNBOOK_BASE_URL), as generated when it is unset.
 */
export function prometheusRule(shop: StoredShop, baseUrl?: string): KubeObject {
  const settings = shop.spec.monitoring?.alerts;
  const excluded = new Set(settings?.exclude);
  const series = shopSeriesLabels(shop);
  const groups = generatedRuleGroups()
    .map((group) => ({
      name: group.name,
      rules: group.rules
        .filter((rule) => isShopRule(rule) && !excluded.has(rule.alert))
        .map((rule) => ({ ...withRunbookBaseUrl(rule, baseUrl), expr: scopeSelectors(rule.expr, series) })),
    }))
    .filter((group) => group.rules.length > 0);
  return {
    apiVersion: MONITORING_API_VERSION,
    kind: 'PrometheusRule',
    metadata: { name: prometheusRuleName(shop), labels: monitoringLabels(shop, 'alerts', settings?.labels) },
    spec: { groups },
  };
}
