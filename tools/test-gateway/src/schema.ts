// The test gateway's own tables, in a PostgreSQL schema of their own: the gateway stands for a system
// outside the shop, so its state is not part of the shop's Prisma schema and never reaches a shop database
// through `npm run db:migrate`. Steps are appended, never edited: a database keeps the steps it has run.
import type pg from 'pg';

export const SCHEMA = 'test_gateway';

const STEPS: readonly string[] = [
  `CREATE TABLE ${SCHEMA}.clock (
     single boolean PRIMARY KEY DEFAULT true CHECK (single),
     now timestamptz NOT NULL
   );
   CREATE TABLE ${SCHEMA}.authorizations (
     id text PRIMARY KEY,
     card_token text NOT NULL,
     currency char(3) NOT NULL,
     authorized_minor bigint NOT NULL CHECK (authorized_minor > 0),
     captured_minor bigint NOT NULL DEFAULT 0 CHECK (captured_minor BETWEEN 0 AND authorized_minor),
     refunded_minor bigint NOT NULL DEFAULT 0 CHECK (refunded_minor BETWEEN 0 AND captured_minor),
     state text NOT NULL CHECK (state IN ('authorized', 'requires_action', 'declined', 'voided')),
     expires_at timestamptz NOT NULL,
     created_at timestamptz NOT NULL
   );
   CREATE TABLE ${SCHEMA}.operations (
     id text PRIMARY KEY,
     idempotency_key text NOT NULL UNIQUE,
     fingerprint text NOT NULL,
     kind text NOT NULL CHECK (kind IN ('authorize', 'capture', 'void', 'refund')),
     authorization_id text NOT NULL REFERENCES ${SCHEMA}.authorizations (id),
     amount_minor bigint NOT NULL,
     currency char(3) NOT NULL,
     status text NOT NULL CHECK (status IN ('approved', 'declined', 'pending', 'requires_action')),
     decline_code text,
     settles_at timestamptz,
     created_at timestamptz NOT NULL,
     seq bigserial NOT NULL UNIQUE,
     CHECK ((status = 'declined') = (decline_code IS NOT NULL)),
     CHECK ((status = 'pending') = (settles_at IS NOT NULL))
   );
   CREATE TABLE ${SCHEMA}.faults (
     id bigserial PRIMARY KEY,
     operations text[] NOT NULL,
     card_token text,
     idempotency_key text,
     fault jsonb NOT NULL,
     remaining integer CHECK (remaining > 0)
   );
   CREATE TABLE ${SCHEMA}.requests (
     id bigserial PRIMARY KEY,
     kind text NOT NULL,
     idempotency_key text,
     authorization_id text,
     outcome text NOT NULL,
     fault text,
     operation_id text,
     error_code text,
     received_at timestamptz NOT NULL
   );`,
];

// Any constant: it only has to keep two gateways starting on one database from running a step twice.
const MIGRATION_LOCK = 7_316_028_411;

/** Creates or brings up to date the test gateway's tables in the database `pool` reaches. */
export async function migrateTestGatewaySchema(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${SCHEMA}.schema_steps (step integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ done: number }>(`SELECT count(*)::int AS done FROM ${SCHEMA}.schema_steps`);
    const done = rows[0]?.done ?? 0;
    for (const [index, step] of STEPS.slice(done).entries()) {
      await client.query(step);
      await client.query(`INSERT INTO ${SCHEMA}.schema_steps (step) VALUES ($1)`, [done + index + 1]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
