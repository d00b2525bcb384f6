// A real Prometheus server (Debian's 2.42, from the infra cache) on a free loopback port, scraping the
// targets it is given every second, and its HTTP API: instant queries, alerts, targets.
import { startPrometheus } from '../../../../test/infra/prometheus.ts';
import { apiGet } from '../../../src/preview/prometheus-api.ts';

const SCRAPE_INTERVAL_SECONDS = 1;

export interface ScrapeTarget {
  readonly job: string;
  /** `http://127.0.0.1:<port>/metrics` */
  readonly metricsUrl: string;
  /** Target labels attached to every series scraped from it, e.g. `namespace` and `shop`. */
  readonly labels: Readonly<Record<string, string>>;
  /** Keep the target's own labels where they clash with target labels (the Temporal server's `namespace`). */
  readonly honorLabels?: boolean;
}

export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  /** The value as Prometheus writes it: a number, `NaN`, `+Inf`. */
  readonly value: string;
}

export interface Alert {
  readonly labels: Readonly<Record<string, string>>;
  readonly state: 'pending' | 'firing';
  readonly value: string;
}

export interface TargetHealth {
  readonly job: string;
  readonly health: 'up' | 'down' | 'unknown';
  readonly lastError: string;
}

export interface PrometheusServer {
  readonly url: string;
  /** An instant query at the server's now (`/api/v1/query`); rejects when Prometheus refuses the expression. */
  query(expr: string): Promise<Sample[]>;
  /** Every pending and firing alert (`/api/v1/alerts`). */
  alerts(): Promise<Alert[]>;
  /** The active targets and their last scrape (`/api/v1/targets`). */
  targets(): Promise<TargetHealth[]>;
  stop(): Promise<void>;
}

/** prometheus.yml as JSON (a subset of YAML): one job per target. */
export function prometheusConfig(targets: readonly ScrapeTarget[], ruleFiles: readonly string[]): string {
  const interval = `${SCRAPE_INTERVAL_SECONDS}s`;
  return JSON.stringify({
    global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
    rule_files: ruleFiles,
    scrape_configs: targets.map((target) => {
      const url = new URL(target.metricsUrl);
      return {
        job_name: target.job,
        metrics_path: url.pathname,
        honor_labels: target.honorLabels ?? false,
        static_configs: [{ targets: [url.host], labels: target.labels }],
      };
    }),
  });
}

export async function startPrometheusServer(targets: readonly ScrapeTarget[], ruleFiles: readonly string[]): Promise<PrometheusServer> {
  const server = await startPrometheus(prometheusConfig(targets, ruleFiles));
  const url = server.url;
  return {
    url,
    async query(expr) {
      const data = await apiGet<{ result: Array<{ metric: Record<string, string>; value: [number, string] }> }>(
        `${url}/api/v1/query?${new URLSearchParams({ query: expr })}`,
      );
      return data.result.map((series) => ({ metric: series.metric, value: series.value[1] }));
    },
    async alerts() {
      return (await apiGet<{ alerts: Alert[] }>(`${url}/api/v1/alerts`)).alerts;
    },
    async targets() {
      const data = await apiGet<{
        activeTargets: Array<{ labels: Record<string, string>; health: TargetHealth['health']; lastError: string }>;
      }>(`${url}/api/v1/targets?state=active`);
      return data.activeTargets.map((target) => ({ job: target.labels.job ?? '', health: target.health, lastError: target.lastError }));
    },
    stop: () => server.dispose(),
  };
}
