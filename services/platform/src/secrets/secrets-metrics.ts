import { Gauge, type Registry } from 'prom-client';
import type pg from 'pg';
import { rowsPerKeyId } from './rows-per-key.ts';

/** `stored_secrets{key_id}`: rows of every encrypted column per master key id, read at scrape time. */
export function registerStoredSecretsMetric(registry: Registry, pool: pg.Pool): void {
  new Gauge({
    name: 'stored_secrets',
    help: 'Stored encrypted values per id of the master key they are under; a rotation is done when only the current key id has rows',
    labelNames: ['key_id'],
    registers: [registry],
    // Every process of a pod reads the same table: summing would multiply it.
    aggregator: 'max',
    async collect() {
      // Rows move between key ids (rewrap): an id with no rows left must disappear, not keep its last count.
      this.reset();
      // Unreadable (the database down, or not migrated yet): no sample this scrape, rather than no /metrics at all.
      const counts = await rowsPerKeyId(pool).catch(() => new Map<string, number>());
      for (const [keyId, rows] of counts) this.set({ key_id: keyId }, rows);
    },
  });
}
