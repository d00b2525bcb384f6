// The live Shop (live-shop.ts) scraped by a real Prometheus every second, with the Temporal server
// (its own `namespace` label kept: it belongs to no Shop); returns once every target is up.
import { expect, inject } from 'vitest';
import { eventually } from '../../../../test/support/wait.ts';
import { startLiveShop, type LiveShop } from './live-shop.ts';
import { startPrometheusServer, type PrometheusServer } from './prometheus-server.ts';

export interface ScrapedShop {
  readonly shop: LiveShop;
  readonly prometheus: PrometheusServer;
  close(): Promise<void>;
}

/** `ruleFiles` are loaded by Prometheus, e.g. the alert rules. */
export async function startScrapedShop(ruleFiles: readonly string[] = []): Promise<ScrapedShop> {
  const shop = await startLiveShop();
  let prometheus: PrometheusServer | undefined;
  const close = async () => {
    await prometheus?.stop();
    await shop.close();
  };
  try {
    const targets = [...shop.targets, { job: 'temporal', metricsUrl: inject('temporalMetricsUrl'), labels: {}, honorLabels: true }];
    const server = await startPrometheusServer(targets, ruleFiles);
    prometheus = server;
    // Prometheus hands new targets to its scrapers every 5 s.
    await eventually(
      async () => {
        const health = (await server.targets()).map((target) => `${target.job} ${target.health} ${target.lastError}`);
        expect(health.sort()).toEqual(targets.map((target) => `${target.job} up `).sort());
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    return { shop, prometheus: server, close };
  } catch (error) {
    await close();
    throw error;
  }
}
