// Issue 14 part 4: a real Prometheus 2.42 scrapes the real api, worker and consumer processes of one Shop
// and its postgres_exporter and redis_exporter, with the committed alert rules loaded (their `for`
// shortened, see live/test-rules.ts). Traffic goes through the api, Kafka and Temporal; then every
// dashboard panel's queries, from the committed JSON, are asked of the server; then the database is
// stopped under load and the 5xx alert must go firing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { produceEvents, testEvent } from '../../services/consumer/test/support/kafka.ts';
import { eventually, readUntil } from '../../test/support/wait.ts';
import { ADMIN, SHOP_LABELS, type LiveShop } from './support/live/live-shop.ts';
import { describePanels, evaluatePanels, panelHasData, type PanelResult } from './support/live/panel-data.ts';
import { panelQueries } from './support/live/panel-queries.ts';
import type { Alert, PrometheusServer } from './support/live/prometheus-server.ts';
import { startScrapedShop, type ScrapedShop } from './support/live/scraped-shop.ts';
import { ShopApiClient } from './support/live/shop-api-client.ts';
import { startStorefrontLoad, type RunningLoad } from './support/live/storefront-load.ts';
import { writeShortenedRules } from './support/live/test-rules.ts';
import { driveWorkflows } from './support/live/workflow-traffic.ts';

/** The test-only `for` of every alert that has one (5m and more in alerts/shop.rules.yaml). */
const SHORT_FOR = '3s';
const SHOP_SELECTOR = `{namespace="${SHOP_LABELS.namespace}", shop="${SHOP_LABELS.shop}"}`;
const VISITORS = 4;

/** Panels no traffic of this test can give data, and why; the test fails if one of them does get data. */
const NOT_SHOWN: Readonly<Record<string, string>> = {
  'shop-broker › Schema validation warnings':
    'event_schema_validation_warnings_total has a series only once an event fails its schema in warn mode, and every emit site emits payloads that match (npm run check:events)',
  'shop-workflows › Workflow executions finished':
    'its failed query: temporal_workflow_failed_total appears with the first failed execution, and no workflow of the worker can fail (activities retry without limit, no workflow code throws an ApplicationFailure)',
  'shop-workflows › Workflow failure ratio':
    'built on temporal_workflow_failed_total, which no execution of the worker can create (see Workflow executions finished)',
};

let scraped: ScrapedShop;
let shop: LiveShop;
let prometheus: PrometheusServer;
let rulesDir: string;
let temporal: Connection;
let load: RunningLoad | undefined;
const startedAt = Date.now();

beforeAll(async () => {
  rulesDir = await mkdtemp(join(tmpdir(), 'shop-live-rules-'));
  scraped = await startScrapedShop([await writeShortenedRules(rulesDir, SHORT_FOR)]);
  ({ shop, prometheus } = scraped);
  temporal = await Connection.connect({ address: inject('temporalAddress') });
}, 120_000);

afterAll(async () => {
  await load?.stop();
  await temporal?.close();
  await scraped?.close();
  if (rulesDir !== undefined) await rm(rulesDir, { recursive: true, force: true });
});

/** The dashboards over the test's time range: `$__range` and `$__rate_interval` span everything since the start. */
async function panelsNow(): Promise<PanelResult[]> {
  const window = `${Math.ceil((Date.now() - startedAt) / 1000)}s`;
  const variables = { ...SHOP_LABELS, temporal_namespace: shop.temporalNamespace, __rate_interval: window, __range: window };
  return evaluatePanels(prometheus, await panelQueries(variables));
}

describe('the dashboards on a real Prometheus scraping the Shop', () => {
  it('answer every panel with data once traffic went through the api, Kafka, the consumer and the worker', async () => {
    const api = new ShopApiClient(shop.apiUrl);
    load = startStorefrontLoad(api, VISITORS);
    await api.signInStaff(ADMIN.email, ADMIN.password);
    // A burst the consumer needs seconds to work off (lag), and one event its handler always fails on.
    const burst = Array.from({ length: 400 }, (_, i) => testEvent(`cart-${i % 20}`));
    await produceEvents(inject('kafkaBrokers'), shop.consumer.topic, [...burst, testEvent('cart-bad', { fail: true })]);
    await driveWorkflows(api, new Client({ connection: temporal, namespace: shop.temporalNamespace }));
    // The cache server goes away until the api has seen it fail: cache operations fail and rate-limit checks let requests through.
    await shop.redis.stop();
    await eventually(
      async () => {
        const metrics = await (await fetch(`${shop.apiUrl}/metrics`)).text();
        expect(metrics).toMatch(/^cache_operations_total\{[^}]*result="error"/m);
        expect(metrics).toMatch(/^rate_limit_decisions_total\{[^}]*result="fail_open"/m);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    await shop.redis.start();

    const expected = (results: PanelResult[]) => results.filter((result) => !(result.panel in NOT_SHOWN));
    const results = await readUntil(panelsNow, (now) => expected(now).every(panelHasData), { timeoutMs: 45_000, intervalMs: 2_000 });
    console.log(`panels after ${Math.round((Date.now() - startedAt) / 1000)} s:\n${describePanels(results)}`);
    expect(results.filter((result) => !panelHasData(result)).map((result) => result.panel)).toEqual(Object.keys(NOT_SHOWN));
    // The burst was seen as lag before the consumer worked it off.
    const lag = await prometheus.query(`max_over_time(kafka_consumergroup_lag${SHOP_SELECTOR}[5m])`);
    expect(Math.max(...lag.map((sample) => Number(sample.value)))).toBeGreaterThan(0);
    // The paid order nobody fulfilled was counted as a fault. (The panel's increase() reads 0 for it: the
    // series is born at 1 with the first fault, and Prometheus never saw it at 0; see dashboards/README.md.)
    const faults = await prometheus.query(`sum(workflow_faults_total${SHOP_SELECTOR})`);
    expect(Number(faults[0]?.value)).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('counts a panel whose query names a metric nothing exports as one without data, which fails the check above', async () => {
    const misspelt = {
      panel: 'shop-api › Request rate (misspelt)',
      queries: [`sum by (route) (rate(http_request_total${SHOP_SELECTOR}[1m]))`],
    };
    const [result] = await evaluatePanels(prometheus, [misspelt]);
    expect(result && panelHasData(result)).toBe(false);
  });

  it('fires ApiHighErrorRate when the database stops under load', async () => {
    const errorAlert = (alerts: Alert[]) => alerts.filter((alert) => alert.labels.alertname === 'ApiHighErrorRate');
    expect(errorAlert(await prometheus.alerts())).toEqual([]);
    await shop.postgres.stop();
    const alert = await eventually(
      async () => {
        const firing = errorAlert(await prometheus.alerts()).find((alert) => alert.state === 'firing');
        expect(firing, `answers so far: ${JSON.stringify([...(load?.answers() ?? [])])}\n${shop.output()}`).toBeDefined();
        return firing;
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    const answers = load?.answers() ?? new Map<string, number>();
    const alerts = (await prometheus.alerts()).map((each) => `${each.labels.alertname} ${each.state}`);
    console.log(`firing: ${JSON.stringify(alert)}\nanswers: ${JSON.stringify([...answers])}\nalerts: ${alerts.join(', ')}`);
    expect(alert?.labels).toMatchObject({ ...SHOP_LABELS, severity: 'critical' });
    // Without a database GraphQL answers 500 (INTERNAL, no data), and the beacon endpoint 503 once
    // its buffer of unwritten events is full: whichever comes first, the alert sees 5xx.
    expect((answers.get('graphql 500') ?? 0) + (answers.get('track 503') ?? 0)).toBeGreaterThan(0);
  }, 90_000);
});
