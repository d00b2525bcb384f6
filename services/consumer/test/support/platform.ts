import { inject } from 'vitest';
import type { Registry } from 'prom-client';
import { createLogger, loadConfig, openPlatform, type Platform } from '@shop/platform';

export interface TestPlatform {
  readonly platform: Platform;
  /** Every log line so far, parsed. */
  logs(): Array<Record<string, unknown>>;
}

/** A platform on the given database and brokers whose log lines are kept in memory. */
export async function openTestPlatform(databaseUrl: string, brokers: string): Promise<TestPlatform> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'INFO',
    DATABASE_URL: databaseUrl,
    CACHE_URL: inject('redisUrl'),
    BROKER_ADDRESS: brokers,
  });
  const lines: string[] = [];
  const logger = createLogger({ level: config.logLevel, service: 'consumer', destination: { write: (line: string) => lines.push(line) } });
  const platform = await openPlatform(config, logger, 'consumer');
  return { platform, logs: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** The value of one labelled series of a metric (0 when the series does not exist). */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  const matches = values.filter((value) => Object.entries(labels).every(([label, expected]) => String(value.labels[label]) === expected));
  return matches.reduce((sum, value) => sum + value.value, 0);
}
