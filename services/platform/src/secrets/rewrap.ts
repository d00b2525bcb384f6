import type pg from 'pg';
import { ConfigError } from '@shop/runtime';
import { keepPace, realClock, type PaceClock } from '../pace.ts';
import { ENCRYPTED_COLUMNS, placeOf, sqlNamesOf, type EncryptedColumn } from './encrypted-columns.ts';
import { openSecret, sealSecret } from './envelope.ts';
import type { MasterKeyring } from './keyring.ts';
import { rowsPerKeyId, type RowsPerKeyId } from './rows-per-key.ts';
import { unreadableKeyIds, unreadableSecretsProblem } from './unreadable-secrets.ts';

export interface RewrapProgress {
  /** Rows moved to the current key so far. */
  readonly done: number;
  /** Rows under other keys this run has not reached yet. */
  readonly left: number;
  readonly rowsPerSecond: number;
}

export interface RewrapResult {
  readonly rewrapped: number;
  /** Rows written anew while the run read them: the new value was kept, not overwritten. */
  readonly changedMeanwhile: number;
  /** Rows still under other keys at the end (written meanwhile by a process whose current key is older). */
  readonly left: number;
  readonly seconds: number;
  /** Rows per master key id, counted at the end. */
  readonly rowsPerKeyId: RowsPerKeyId;
}

export interface RewrapOptions {
  readonly batchSize?: number;
  /** At most this many rows a second, so a rewrap beside the storefront leaves it the cores; 0 (the default) does not pace. */
  readonly rowsPerSecond?: number;
  readonly clock?: PaceClock;
  readonly onProgress?: (progress: RewrapProgress) => void;
}

interface Row {
  readonly row: string;
  readonly key_id: string;
  readonly ciphertext: Buffer;
}

/**
 * Re-encrypts every stored value that is not under the current master key, in batches. It keeps no
 * state: what is left is exactly the rows under other keys, so a run stopped anywhere is resumed by
 * running it again, and a run with nothing left changes nothing. Each row is replaced only if its
 * ciphertext is still the one that was read (compare-and-swap), so a value written meanwhile is never
 * overwritten with the older one. Refuses (ConfigError) when some rows are under keys it does not hold.
 */
export async function rewrapSecrets(pool: pg.Pool, keyring: MasterKeyring, options: RewrapOptions = {}): Promise<RewrapResult> {
  const { batchSize = 500, rowsPerSecond = 0, clock = realClock, onProgress } = options;
  const before = await rowsPerKeyId(pool);
  const missing = unreadableKeyIds(before, keyring);
  if (missing.size > 0) throw new ConfigError([unreadableSecretsProblem(missing)]);

  const started = clock.now();
  const total = rowsNotUnderCurrentKey(before, keyring);
  let rewrapped = 0;
  let changedMeanwhile = 0;
  for (const column of ENCRYPTED_COLUMNS) {
    let batchStarted = clock.now();
    for await (const batch of batchesToRewrap(pool, column, keyring, batchSize)) {
      const swapped = await swapBatch(pool, column, keyring, batch);
      rewrapped += swapped;
      changedMeanwhile += batch.length - swapped;
      await keepPace(rowsPerSecond, batch.length, batchStarted, clock);
      batchStarted = clock.now();
      const seconds = (batchStarted - started) / 1000;
      onProgress?.({
        done: rewrapped,
        left: Math.max(total - rewrapped - changedMeanwhile, 0),
        rowsPerSecond: seconds > 0 ? rewrapped / seconds : 0,
      });
    }
  }
  const counted = await rowsPerKeyId(pool);
  return {
    rewrapped,
    changedMeanwhile,
    left: rowsNotUnderCurrentKey(counted, keyring),
    seconds: (clock.now() - started) / 1000,
    rowsPerKeyId: counted,
  };
}

function rowsNotUnderCurrentKey(counts: RowsPerKeyId, keyring: MasterKeyring): number {
  let rows = 0;
  for (const [keyId, count] of counts) if (keyId !== keyring.current.id) rows += count;
  return rows;
}

/** Pages through the rows under other keys in the order of their row id, so rows that lose the swap are not read again. */
async function* batchesToRewrap(pool: pg.Pool, column: EncryptedColumn, keyring: MasterKeyring, batchSize: number): AsyncGenerator<Row[]> {
  const { table, row, keyId, ciphertext } = sqlNamesOf(column);
  const sql = `SELECT ${row} AS row, ${keyId} AS key_id, ${ciphertext} AS ciphertext FROM ${table}
                WHERE ${keyId} <> $1 AND ($2::text IS NULL OR ${row} > $2) ORDER BY ${row} LIMIT $3`;
  let after: string | null = null;
  for (;;) {
    const { rows }: pg.QueryResult<Row> = await pool.query<Row>(sql, [keyring.current.id, after, batchSize]);
    if (rows.length === 0) return;
    yield rows;
    after = (rows.at(-1) as Row).row;
  }
}

/** Writes the batch re-encrypted under the current key in one statement; returns how many rows still held what was read. */
async function swapBatch(pool: pg.Pool, column: EncryptedColumn, keyring: MasterKeyring, batch: readonly Row[]): Promise<number> {
  const resealed = batch.map((row) => {
    const place = placeOf(column, row.row);
    return sealSecret(keyring, openSecret(keyring, { keyId: row.key_id, ciphertext: row.ciphertext }, place), place);
  });
  const { table, row, keyId, ciphertext } = sqlNamesOf(column);
  const { rowCount } = await pool.query(
    `UPDATE ${table} AS t SET ${keyId} = v.key_id, ${ciphertext} = v.ciphertext
       FROM unnest($1::text[], $2::bytea[], $3::text[], $4::bytea[]) AS v(row, old, key_id, ciphertext)
      WHERE t.${row} = v.row AND t.${ciphertext} = v.old`,
    [
      batch.map((row) => row.row),
      batch.map((row) => row.ciphertext),
      resealed.map((sealed) => sealed.keyId),
      resealed.map((sealed) => sealed.ciphertext),
    ],
  );
  return rowCount ?? 0;
}
