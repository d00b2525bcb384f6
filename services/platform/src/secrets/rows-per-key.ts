import type pg from 'pg';
import { ENCRYPTED_COLUMNS, sqlNamesOf, type EncryptedColumn } from './encrypted-columns.ts';

/** Rows of every encrypted column, by the id of the master key they are under. */
export type RowsPerKeyId = ReadonlyMap<string, number>;

function countSql(column: EncryptedColumn): string {
  const { table, keyId } = sqlNamesOf(column);
  return `SELECT ${keyId} AS key_id, count(*)::int AS rows FROM ${table} GROUP BY 1`;
}

export async function rowsPerKeyId(pool: pg.Pool): Promise<RowsPerKeyId> {
  const counts = new Map<string, number>();
  for (const column of ENCRYPTED_COLUMNS) {
    const { rows } = await pool.query<{ key_id: string; rows: number }>(countSql(column));
    for (const row of rows) counts.set(row.key_id, (counts.get(row.key_id) ?? 0) + row.rows);
  }
  return counts;
}

/** `abc (3 rows), def (1 row)`, largest first. */
export function describeRowsPerKeyId(counts: RowsPerKeyId): string {
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([keyId, rows]) => `${keyId} (${rows} ${rows === 1 ? 'row' : 'rows'})`)
    .join(', ');
}
