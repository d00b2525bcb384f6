// How a preview writes values, legends and Grafana's interval variables: the pure parts of
// `npm run dashboards:preview`, checked against what Grafana shows for the same inputs.
import { describe, expect, it } from 'vitest';
import { readDashboards } from '../src/dashboard-json.ts';
import { parseDuration } from '../src/preview/options.ts';
import { legendName } from '../src/preview/panel-series.ts';
import { formatValue } from '../src/preview/units.ts';
import { intervalVariables } from '../src/preview/variables.ts';

describe('formatValue', () => {
  const written: ReadonlyArray<readonly [string, number, string]> = [
    ['short', 0, '0'],
    ['short', 1234, '1.23 K'],
    ['short', 2_500_000, '2.5 Mil'],
    ['reqps', 98.765, '98.8 req/s'],
    ['ops', 0.25, '0.25 ops/s'],
    ['percentunit', 0.0123, '1.23%'],
    ['s', 0.000_25, '250 µs'],
    ['s', 0.5, '500 ms'],
    ['s', 12, '12 s'],
    ['s', 300, '5 min'],
    ['bytes', 1536, '1.5 KiB'],
    ['bytes', 100_000, '97.7 KiB'],
    ['bool', 1, 'True'],
    ['bool', 0, 'False'],
    ['suffix: rows/s', 1500, '1.5 K rows/s'],
  ];

  it.each(written)('writes %s %d as %s', (unit, value, text) => {
    expect(formatValue(value, unit)).toBe(text);
  });

  it('knows every unit the dashboards use (an unknown one would be written as a plain number)', async () => {
    const units = new Set(
      (await readDashboards()).flatMap((dashboard) => dashboard.panels.map((panel) => panel.fieldConfig.defaults.unit ?? 'short')),
    );
    expect([...units].filter((unit) => !written.some(([known]) => known === unit))).toEqual([]);
  });
});

describe('legendName', () => {
  it("fills a legend format's {{label}}s from the series, and names a series without a format by its labels", () => {
    expect(legendName('{{route}} {{status}}', { route: '/graphql', status: '400' })).toBe('/graphql 400');
    expect(legendName('{{missing}}x', {})).toBe('x');
    expect(legendName('', { job: 'api', shop: 'live' })).toBe('{job="api", shop="live"}');
  });
});

describe('intervalVariables', () => {
  it("makes $__rate_interval the step plus a scrape, and at least four scrapes, as Grafana's", () => {
    expect(intervalVariables(2, 15, 900)).toEqual({ __interval: '2s', __rate_interval: '60s', __range: '900s' });
    expect(intervalVariables(60, 15, 86_400)).toEqual({ __interval: '60s', __rate_interval: '75s', __range: '86400s' });
  });
});

describe('parseDuration', () => {
  it('reads seconds, minutes, hours and days, and refuses anything else', () => {
    expect(['90s', '15m', '3h', '1d'].map(parseDuration)).toEqual([90, 900, 10_800, 86_400]);
    expect(['', '15', '0m', '1.5h', '15 m', '1w'].map(parseDuration)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
