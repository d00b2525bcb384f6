import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '@shop/runtime';
import { placeOf, STORED_SECRET_VALUES } from '../../src/secrets/encrypted-columns.ts';
import { sealSecret } from '../../src/secrets/envelope.ts';
import { masterKeyring, type MasterKeyring } from '../../src/secrets/keyring.ts';
import { rewrapSecrets, type RewrapProgress } from '../../src/secrets/rewrap.ts';
import { rowsPerKeyId } from '../../src/secrets/rows-per-key.ts';
import { readStoredSecret, setStoredSecret } from '../../src/secrets/stored-secrets.ts';
import { waitFor } from '../../../../test/support/wait.ts';
import { newMasterKey, openSecretsDatabase, type SecretsDatabase } from '../support/secrets-database.ts';

let db: SecretsDatabase;
const oldKey = newMasterKey();
const newKey = newMasterKey();
const before = masterKeyring(oldKey);
const rotated = masterKeyring(newKey, [oldKey]);
const ROWS = 1_050;

beforeAll(async () => {
  db = await openSecretsDatabase('rewrap');
});
afterAll(async () => db?.close());

const keyOf = (i: number) => `secret.${String(i).padStart(5, '0')}`;
const valueOf = (i: number) => `value ${i} ✓`;

/** Writes the rows as the api does, under the given keyring's current key. */
async function writeRows(keyring: MasterKeyring, count: number): Promise<void> {
  await db.database.prisma.$transaction(
    async (tx) => {
      for (let i = 0; i < count; i += 1)
        await setStoredSecret(tx, keyring, { key: keyOf(i), value: valueOf(i), setAt: new Date(), setByStaffUserId: null });
    },
    { timeout: 60_000 },
  );
}

const counts = async () => Object.fromEntries(await rowsPerKeyId(db.database.pool));
const ciphertexts = async () =>
  (await db.database.pool.query<{ key: string; ciphertext: Buffer }>('SELECT key, ciphertext FROM stored_secrets ORDER BY key')).rows;

beforeEach(async () => {
  await db.database.pool.query('TRUNCATE stored_secrets');
  await writeRows(before, ROWS);
});

describe('rewrap', () => {
  it('moves every row to the current key in batches, reporting rows done, left and the rate; every value still reads', async () => {
    const progress: RewrapProgress[] = [];
    const result = await rewrapSecrets(db.database.pool, rotated, { batchSize: 100, onProgress: (p) => progress.push(p) });

    expect(result).toMatchObject({ rewrapped: ROWS, changedMeanwhile: 0, left: 0, rowsPerKeyId: new Map([[rotated.current.id, ROWS]]) });
    expect(progress.map((p) => p.done)).toEqual([...Array.from({ length: 10 }, (_, i) => (i + 1) * 100), ROWS]);
    expect(progress.map((p) => p.left)).toEqual(progress.map((p) => ROWS - p.done));
    expect(progress.every((p) => p.rowsPerSecond > 0)).toBe(true);
    expect(await counts()).toEqual({ [rotated.current.id]: ROWS });
    const onlyNewKey = masterKeyring(newKey);
    for (const i of [0, 99, 100, 523, ROWS - 1]) expect(await readStoredSecret(db.database.prisma, onlyNewKey, keyOf(i))).toBe(valueOf(i));
  });

  it('keeps to its pace: each batch takes its share of time at rowsPerSecond, the last one too', async () => {
    // A clock that moves only when the rewrap sleeps: each sleep is then the batch's whole share.
    let now = 0;
    const sleeps: number[] = [];
    const clock = { now: () => now, sleep: async (ms: number) => void (sleeps.push(ms), (now += ms)) };
    const result = await rewrapSecrets(db.database.pool, rotated, { batchSize: 100, rowsPerSecond: 200, clock });

    expect(result).toMatchObject({ rewrapped: ROWS, left: 0, seconds: ROWS / 200 });
    expect(sleeps).toEqual([...Array.from({ length: 10 }, () => 500), 250]);
  });

  it('sleeps only what a batch has not taken already, and not at all unpaced', async () => {
    // Real time, plus the sleeps, which return at once: a batch of 100 rows is owed 100 ms at 1,000 rows a second.
    let slept = 0;
    const sleeps: number[] = [];
    const clock = { now: () => performance.now() + slept, sleep: async (ms: number) => void (sleeps.push(ms), (slept += ms)) };
    const result = await rewrapSecrets(db.database.pool, rotated, { batchSize: 100, rowsPerSecond: 1_000, clock });
    expect(sleeps).toHaveLength(11);
    expect(sleeps.every((ms) => ms < 100)).toBe(true);
    expect(result.seconds).toBeGreaterThanOrEqual(ROWS / 1_000);

    await db.database.pool.query('TRUNCATE stored_secrets');
    await writeRows(before, ROWS);
    sleeps.length = 0;
    await rewrapSecrets(db.database.pool, rotated, { batchSize: 100, rowsPerSecond: 0, clock });
    expect(sleeps).toEqual([]);
  });

  it('changes nothing when run again', async () => {
    await rewrapSecrets(db.database.pool, rotated);
    const first = await ciphertexts();
    const again = await rewrapSecrets(db.database.pool, rotated);
    expect(again).toMatchObject({ rewrapped: 0, changedMeanwhile: 0, left: 0 });
    expect(await ciphertexts()).toEqual(first);
  });

  it('resumes where an interrupted run stopped, rewrapping no row twice', async () => {
    const interrupted = rewrapSecrets(db.database.pool, rotated, {
      batchSize: 200,
      onProgress: (p) => {
        if (p.done >= 400) throw new Error('killed');
      },
    });
    await expect(interrupted).rejects.toThrow('killed');
    expect(await counts()).toEqual({ [rotated.current.id]: 400, [before.current.id]: ROWS - 400 });

    const resumed = await rewrapSecrets(db.database.pool, rotated, { batchSize: 200 });
    expect(resumed).toMatchObject({ rewrapped: ROWS - 400, left: 0 });
    expect(await counts()).toEqual({ [rotated.current.id]: ROWS });
  });

  it('keeps a value written between its read and its swap (compare-and-swap), and reports it as left when written under an older key', async () => {
    // A process still on the old key holds a row lock with a new value; the rewrap reads the old value, then waits on that row.
    const writer = new pg.Client({ connectionString: db.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      const { keyId, ciphertext } = sealSecret(before, 'rotated by hand', placeOf(STORED_SECRET_VALUES, keyOf(7)));
      const written = await writer.query('UPDATE stored_secrets SET key_id = $2, ciphertext = $3 WHERE key = $1', [
        keyOf(7),
        keyId,
        ciphertext,
      ]);
      expect(written.rowCount).toBe(1);
      const running = rewrapSecrets(db.database.pool, rotated, { batchSize: 500 });
      await waitFor(
        async () =>
          (await db.database.pool.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"))
            .rowCount === 1,
        10_000,
        'the rewrap to wait on the locked row',
      );
      await writer.query('COMMIT');
      const result = await running;

      expect(result).toMatchObject({ rewrapped: ROWS - 1, changedMeanwhile: 1, left: 1 });
      expect(await readStoredSecret(db.database.prisma, rotated, keyOf(7))).toBe('rotated by hand');
      expect(await rewrapSecrets(db.database.pool, rotated)).toMatchObject({ rewrapped: 1, left: 0 });
      expect(await readStoredSecret(db.database.prisma, masterKeyring(newKey), keyOf(7))).toBe('rotated by hand');
    } finally {
      await writer.end();
    }
  });

  it('refuses, touching nothing, when some rows are under a key it does not hold', async () => {
    const stranger = masterKeyring(newMasterKey());
    await setStoredSecret(db.database.prisma, stranger, { key: 'foreign', value: 'x', setAt: new Date(), setByStaffUserId: null });
    const snapshot = await ciphertexts();
    const refused = rewrapSecrets(db.database.pool, rotated);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(`key ids ${stranger.current.id} (1 row)`);
    expect(await ciphertexts()).toEqual(snapshot);
  });
});
