import { RUNBOOKS_DIR, type AlertRule } from './monitoring-files.ts';

let operatorBaseUrl: string | undefined;

/**
 * The operator's RUNBOOK_BASE_URL (config.ts), set once at start: the rules it provisions link their
 * runbooks there. The reconcile steps carry no operator settings, hence a setting of this module.
 */
export function useRunbookBaseUrl(baseUrl: string | undefined): void {
  operatorBaseUrl = baseUrl;
}

export function runbookBaseUrl(): string | undefined {
  return operatorBaseUrl;
}

/** The rule with runbook_url at `baseUrl` (where the repository's files are served, ending in /); as generated when undefined. */
export function withRunbookBaseUrl(rule: AlertRule, baseUrl: string | undefined): AlertRule {
  if (baseUrl === undefined) return rule;
  return { ...rule, annotations: { ...rule.annotations, runbook_url: new URL(`${RUNBOOKS_DIR}/${rule.alert}.md`, baseUrl).href } };
}
