import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPostgresExporter, startRedisExporter, type Exporter } from '../../test/infra/exporters.ts';
import { EXTERNAL_METRICS } from '../src/external-metrics.ts';
import { buildDashboards } from '../src/dashboards.ts';
import { alertExpressions, dashboardExpressions, variableQueries } from './support/expressions.ts';
import { metricNames } from './support/promql-metric-names.ts';
import { registeredSeriesNames } from './support/registered-metrics.ts';

const external = new Set<string>(Object.values(EXTERNAL_METRICS).flat());

function namesUsed(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  const record = (name: string, where: string) => used.set(name, [...(used.get(name) ?? []), where]);
  for (const { where, expr } of [...dashboardExpressions(), ...alertExpressions()]) {
    for (const name of metricNames(expr)) record(name, where);
  }
  for (const dashboard of buildDashboards()) {
    for (const { where, expr } of variableQueries(dashboard)) {
      const [, name] = /^label_values\((\w+)/.exec(expr) ?? [];
      if (name === undefined) throw new Error(`${where}: not a label_values query: ${expr}`);
      record(name, where);
    }
  }
  return used;
}

describe('the metric name extractor', () => {
  it('finds the metrics of an expression, not its functions, labels, ranges or variables', () => {
    const expr =
      'sum by (status) (rate(http_requests_total{namespace="$namespace", status=~"4..|5.."}[$__rate_interval]))\n' +
      '  / scalar(sum(rate(http_requests_total[5m]))) or on (le) histogram_quantile(0.95, x_bucket) > bool 0 unless up offset 5m';
    expect(metricNames(expr)).toEqual(['http_requests_total', 'up', 'x_bucket']);
  });
});

describe('every metric a dashboard or an alert names exists', () => {
  it('is registered by the api, worker or consumer, or listed in dashboards/src/external-metrics.ts', async () => {
    const ours = await registeredSeriesNames();
    const unknown = [...namesUsed()].filter(([name]) => !ours.has(name) && !external.has(name));
    expect(unknown.map(([name, where]) => `${name} (${where.join(', ')})`)).toEqual([]);
    // The check has something to check: the api's and the outbox's metrics are among ours.
    expect(ours).toContain('http_request_duration_seconds_bucket');
    expect(ours).toContain('outbox_oldest_pending_age_seconds');
  });

  it('lists no external metric that nothing uses', () => {
    const used = namesUsed();
    expect([...external].filter((name) => !used.has(name))).toEqual([]);
  });
});

describe('the exporters export the metrics listed for them', () => {
  const exporters: Exporter[] = [];
  beforeAll(async () => {
    exporters.push(await startPostgresExporter(inject('postgresUrl')), await startRedisExporter(inject('redisUrl')));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(exporters.map((exporter) => exporter.stop()));
  });

  const scrapedNames = async (exporter: Exporter) => {
    const text = await (await fetch(exporter.metricsUrl)).text();
    return new Set(
      text
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => line.split(/[{ ]/)[0]),
    );
  };

  it('postgres_exporter 0.17.1 against PostgreSQL 15', async () => {
    const names = await scrapedNames(exporters[0] as Exporter);
    expect(EXTERNAL_METRICS.postgresExporter.filter((name) => !names.has(name))).toEqual([]);
  });

  it('redis_exporter 1.74.0 against redis-server', async () => {
    const names = await scrapedNames(exporters[1] as Exporter);
    expect(EXTERNAL_METRICS.redisExporter.filter((name) => !names.has(name))).toEqual([]);
  });
});
