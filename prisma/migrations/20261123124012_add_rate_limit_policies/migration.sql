-- CreateTable
CREATE TABLE "rate_limit_policies" (
    "key" VARCHAR(100) NOT NULL,
    "capacity" INTEGER NOT NULL,
    "refill_per_second" DECIMAL(12,6) NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rate_limit_policies_pkey" PRIMARY KEY ("key")
);

-- Hand-written below: constraints, the change notification and the default policies (docs/rate-limiting.md).
ALTER TABLE "rate_limit_policies" ADD CONSTRAINT "rate_limit_policies_capacity_check" CHECK ("capacity" > 0);
ALTER TABLE "rate_limit_policies" ADD CONSTRAINT "rate_limit_policies_refill_per_second_check" CHECK ("refill_per_second" > 0);

-- Edits made with plain SQL keep updated_at honest too.
CREATE FUNCTION "rate_limit_policies_touch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."updated_at" := CURRENT_TIMESTAMP;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "rate_limit_policies_touch"
  BEFORE UPDATE ON "rate_limit_policies"
  FOR EACH ROW EXECUTE FUNCTION "rate_limit_policies_touch"();

-- Every api process LISTENs on this channel and reloads the whole (small) table when told; the notice
-- is delivered at commit, once per statement, with no payload.
CREATE FUNCTION "rate_limit_policies_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rate_limit_policies', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER "rate_limit_policies_notify"
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "rate_limit_policies"
  FOR EACH STATEMENT EXECUTE FUNCTION "rate_limit_policies_notify"();

-- The same values as DEFAULT_RATE_LIMIT_POLICIES in services/platform/src/rate-limit/policy.ts, which apply
-- to a key with no row; seeded so that operators see and edit what is in force.
INSERT INTO "rate_limit_policies" ("key", "capacity", "refill_per_second") VALUES
  ('track', 120, 20),
  ('graphql', 200, 20),
  ('graphql:registerCustomer', 5, 0.002778),
  ('graphql:loginCustomer', 10, 0.033333),
  ('graphql:loginStaff', 10, 0.033333),
  ('graphql:captureLead', 10, 0.016667);
