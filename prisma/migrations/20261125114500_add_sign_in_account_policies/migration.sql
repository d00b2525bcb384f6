-- Sign-ins are also limited per account (the email they name), whoever sends them. The same values as
-- DEFAULT_RATE_LIMIT_POLICIES in services/platform/src/rate-limit/policy.ts; a row an operator already
-- made for these keys is kept.
INSERT INTO "rate_limit_policies" ("key", "capacity", "refill_per_second") VALUES
  ('graphql:loginCustomer:account', 10, 0.033333),
  ('graphql:loginStaff:account', 10, 0.033333)
ON CONFLICT ("key") DO NOTHING;
