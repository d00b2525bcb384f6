import type pg from 'pg';

/** The counting group's effects: settings value per event id. */
export async function effectsOf(pool: pg.Pool, groupId: string): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ key: string; value: number }>('SELECT key, value FROM settings WHERE key LIKE $1', [`${groupId}/%`]);
  return new Map(rows.map((row) => [row.key.slice(groupId.length + 1), Number(row.value)]));
}

export async function processedEventIds(pool: pg.Pool, groupId: string): Promise<string[]> {
  const { rows } = await pool.query<{ event_id: string }>('SELECT event_id FROM processed_events WHERE consumer_group = $1', [groupId]);
  return rows.map((row) => row.event_id);
}
