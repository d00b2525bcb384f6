import { Gauge, type Registry } from 'prom-client';
import type { SearchEngine } from './search-engine.ts';

/** `search_last_indexed_timestamp_seconds{index}`: when each index last took a document, read at scrape time. */
export function registerSearchFreshnessMetric(registry: Registry, engine: SearchEngine, indexNames: readonly string[]): void {
  new Gauge({
    name: 'search_last_indexed_timestamp_seconds',
    help: 'Unix time a document of the search index was last written; time() minus it is how stale search may be',
    labelNames: ['index'],
    registers: [registry],
    // Every process reads the same engine: summing would multiply it.
    aggregator: 'max',
    async collect() {
      this.reset();
      for (const indexName of indexNames) {
        // Unreadable (engine down, database not migrated): no sample this scrape, rather than no /metrics at all.
        const last = await engine.lastIndexedAt(indexName).catch(() => undefined);
        if (last !== undefined) this.set({ index: indexName }, last.getTime() / 1000);
      }
    },
  });
}
