import pg from 'pg';

/**
 * The rate-limit policies for a benchmark, through the table every api reads (docs/rate-limiting.md):
 * - 'out of reach': every policy enabled, raised so that one client address is never refused; each
 *   request still takes its tokens from its buckets, so the limiter's whole cost stays in the figure;
 * - 'off': every policy disabled: a request's charge ends at looking its policy up.
 * An api applies a change at boot, and a running one within milliseconds (NOTIFY) on PostgreSQL.
 */
export async function setRateLimits(databaseUrl: string, mode: 'out of reach' | 'off'): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      mode === 'off'
        ? 'UPDATE rate_limit_policies SET enabled = false'
        : 'UPDATE rate_limit_policies SET capacity = 2147483647, refill_per_second = 999999, enabled = true',
    );
  } finally {
    await client.end();
  }
}
