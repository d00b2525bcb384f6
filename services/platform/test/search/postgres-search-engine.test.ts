import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestPlatform, type TestPlatform } from '../../../../test/support/test-platform.ts';
import { createMetricsRegistry } from '../../src/metrics/registry.ts';
import { postgresSearchEngine } from '../../src/search/postgres-search-engine.ts';
import type { SearchEngine } from '../../src/search/search-engine.ts';
import { registerSearchFreshnessMetric } from '../../src/search/search-metrics.ts';
import { searchEngineContract } from '../support/search-engine-contract.ts';

let test: TestPlatform;
let engine: SearchEngine;

beforeAll(async () => {
  test = await openTestPlatform('search_postgres');
  engine = postgresSearchEngine(test.platform.database.prisma);
});
afterAll(async () => test?.close());

searchEngineContract('PostgreSQL full text', () => engine);

it('writes in the transaction it is given, so a rolled-back handler leaves the index as it was', async () => {
  const rollback = new Error('rollback');
  await expect(
    test.platform.database.prisma.$transaction(async (tx) => {
      await postgresSearchEngine(tx).index('tx_test', [{ id: '1', title: 'Lamp', body: '', filters: {}, data: {} }]);
      expect((await postgresSearchEngine(tx).search('tx_test', { text: 'lamp', limit: 1, offset: 0 })).total).toBe(1);
      throw rollback;
    }),
  ).rejects.toBe(rollback);
  expect((await engine.search('tx_test', { text: 'lamp', limit: 1, offset: 0 })).total).toBe(0);
});

it('exposes when each index last took a document as search_last_indexed_timestamp_seconds{index}', async () => {
  const registry = createMetricsRegistry('test');
  registerSearchFreshnessMetric(registry, engine, ['metric_full', 'metric_empty']);
  await engine.index('metric_full', [{ id: '1', title: 'Lamp', body: '', filters: {}, data: {} }]);
  const last = await engine.lastIndexedAt('metric_full');

  const values = (await registry.getSingleMetric('search_last_indexed_timestamp_seconds')?.get())?.values;
  expect(values?.map(({ labels, value }) => [labels.index, value])).toEqual([['metric_full', (last?.getTime() ?? 0) / 1000]]);
});
