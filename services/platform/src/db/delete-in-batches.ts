import type pg from 'pg';

const DELETE_BATCH = 10_000;

/**
 * Deletes the rows of `table` matching `where` (which may use $1..$n from `params`), a batch at a
 * time so a large backlog never holds one long lock. Returns how many rows went.
 */
export async function deleteInBatches(pool: pg.Pool, table: string, where: string, params: readonly unknown[]): Promise<number> {
  const sql = `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ${DELETE_BATCH}))`;
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(sql, [...params]);
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < DELETE_BATCH) return deleted;
  }
}
