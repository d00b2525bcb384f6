import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/infra/isolation.ts';
import { createMetricsRegistry } from '../../src/metrics/registry.ts';
import { masterKeyring } from '../../src/secrets/keyring.ts';
import { rewrapSecrets } from '../../src/secrets/rewrap.ts';
import { registerStoredSecretsMetric } from '../../src/secrets/secrets-metrics.ts';
import { setStoredSecret } from '../../src/secrets/stored-secrets.ts';
import { newMasterKey, openSecretsDatabase, type SecretsDatabase } from '../support/secrets-database.ts';

let db: SecretsDatabase;
beforeAll(async () => {
  db = await openSecretsDatabase('secrets_metrics');
});
afterAll(async () => db?.close());

describe('stored_secrets{key_id}', () => {
  it('counts rows per key id at each scrape, and drops a key id once rewrap has moved its rows', async () => {
    const registry = createMetricsRegistry('test');
    registerStoredSecretsMetric(registry, db.database.pool);
    const [oldKey, newKey] = [newMasterKey(), newMasterKey()];
    const [before, rotated] = [masterKeyring(oldKey), masterKeyring(newKey, [oldKey])];
    for (const [keyring, key] of [
      [before, 'a'],
      [before, 'b'],
      [rotated, 'c'],
    ] as const) {
      await setStoredSecret(db.database.prisma, keyring, { key, value: 'v', setAt: new Date(), setByStaffUserId: null });
    }
    const series = async () =>
      (await registry.getSingleMetric('stored_secrets')?.get())?.values.map(({ labels, value }) => [labels.key_id, value]);

    expect(await series()).toEqual(
      expect.arrayContaining([
        [before.current.id, 2],
        [rotated.current.id, 1],
      ]),
    );
    await rewrapSecrets(db.database.pool, rotated);
    expect(await series()).toEqual([[rotated.current.id, 3]]);
  });

  it('leaves the other metrics readable while the table cannot be read (the database not migrated yet)', async () => {
    const unmigrated = await createTestDatabase('secrets_metrics_unmigrated');
    const pool = new pg.Pool({ connectionString: unmigrated.url });
    try {
      const registry = createMetricsRegistry('test');
      registerStoredSecretsMetric(registry, pool);
      const text = await registry.metrics();
      expect(text).toContain('# TYPE stored_secrets gauge');
      expect(text).not.toMatch(/^stored_secrets\{/m);
    } finally {
      await pool.end();
      await unmigrated.drop();
    }
  });
});
