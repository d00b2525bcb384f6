import pg from 'pg';

/**
 * Raises every rate limit of a test database out of reach. All test requests come from 127.0.0.1
 * and the Redis buckets are shared by every test file of a run, so the default limits would make
 * unrelated tests fail by their neighbours' traffic; the rate-limit tests prove the limits.
 */
export async function liftRateLimits(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ exists: boolean }>("SELECT to_regclass('rate_limit_policies') IS NOT NULL AS exists");
    if (rows[0]?.exists) await client.query('UPDATE rate_limit_policies SET capacity = 100000, refill_per_second = 10000');
  } finally {
    await client.end();
  }
}
