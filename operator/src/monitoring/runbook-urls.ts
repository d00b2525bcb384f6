import { RUNBOOKS_DIR, type AlertRule } from './monitoring-files.ts';

/** The rule with runbook_url at `baseUrl` (where the repository's files are served, ending in /); as generated when undefined. */
export function withRunbookBaseUrl(rule: AlertRule, baseUrl: string | undefined): AlertRule {
  if (baseUrl === undefined) return rule;
  return { ...rule, annotations: { ...rule.annotations, runbook_url: new URL(`${RUNBOOKS_DIR}/${rule.alert}.md`, baseUrl).href } };
}
