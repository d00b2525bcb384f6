import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@shop/runtime';
import { masterKeyring } from '../../src/secrets/keyring.ts';
import { guardStoredSecretKeys, type StartGuard } from '../../src/secrets/start-guard.ts';
import { setStoredSecret } from '../../src/secrets/stored-secrets.ts';
import { waitFor } from '../../../../test/support/wait.ts';
import { newMasterKey, openSecretsDatabase, type SecretsDatabase } from '../support/secrets-database.ts';

const logger = createLogger({ level: 'ERROR', service: 'test' });
const [oldKey, newKey, lostKey, otherLostKey] = [newMasterKey(), newMasterKey(), newMasterKey(), newMasterKey()];
const opened: Array<{ db: SecretsDatabase; guard?: StartGuard }> = [];

afterEach(async () => {
  for (const { db, guard } of opened.splice(0)) {
    guard?.stop();
    await db.close();
  }
});

async function databaseWith(rows: ReadonlyArray<readonly [Buffer, number]>): Promise<SecretsDatabase> {
  const db = await openSecretsDatabase('start_guard');
  opened.push({ db });
  let n = 0;
  for (const [key, count] of rows) {
    for (let i = 0; i < count; i += 1) {
      n += 1;
      await setStoredSecret(db.database.prisma, masterKeyring(key), {
        key: `k${n}`,
        value: 'v',
        setAt: new Date(),
        setByStaffUserId: null,
      });
    }
  }
  return db;
}

async function guard(db: SecretsDatabase, keys: readonly Buffer[], retryMs = 50): Promise<{ refusals: string[] }> {
  const refusals: string[] = [];
  const [current, ...rotatingFrom] = keys as [Buffer, ...Buffer[]];
  const started = await guardStoredSecretKeys({
    pool: db.database.pool,
    keyring: masterKeyring(current, rotatingFrom),
    logger,
    retryMs,
    refuse: (problem) => void refusals.push(problem),
  });
  (opened.find((entry) => entry.db === db) as { guard?: StartGuard }).guard = started;
  return { refusals };
}

describe('the start check of the master keys', () => {
  it('lets a process start whose keys read every row, current or rotating from', async () => {
    const db = await databaseWith([
      [oldKey, 2],
      [newKey, 1],
    ]);
    expect((await guard(db, [newKey, oldKey])).refusals).toEqual([]);
  });

  it('refuses with one line naming each missing key id and its rows, largest first', async () => {
    const db = await databaseWith([
      [oldKey, 1],
      [lostKey, 3],
      [otherLostKey, 1],
    ]);
    const { refusals } = await guard(db, [newKey, oldKey]);
    const [lost, otherLost] = [masterKeyring(lostKey).current.id, masterKeyring(otherLostKey).current.id];
    expect(refusals).toEqual([
      `SECRETS_MASTER_KEY: stored secrets are under master keys this process does not have: key ids ${lost} (3 rows), ${otherLost} (1 row); ` +
        'set each of those keys in SECRETS_MASTER_KEY_ROTATING_FROM (docs/secrets.md)',
    ]);
  });

  it('starts while it cannot count the rows (table missing), and refuses once it can', async () => {
    const db = await databaseWith([[lostKey, 1]]);
    // A database the check cannot read yet, as before the migrations ran.
    await db.database.pool.query('ALTER TABLE stored_secrets RENAME TO stored_secrets_later');
    const { refusals } = await guard(db, [newKey]);
    expect(refusals).toEqual([]);

    await db.database.pool.query('ALTER TABLE stored_secrets_later RENAME TO stored_secrets');
    await waitFor(() => refusals.length === 1, 10_000, 'the retried check to refuse');
    expect(refusals[0]).toContain(`${masterKeyring(lostKey).current.id} (1 row)`);
  });
});
