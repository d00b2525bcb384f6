-- Checkout (placeOrder, which authorizes a card) is limited per client address and per session, so
-- card testing with fresh idempotency keys is slowed. The same values as DEFAULT_RATE_LIMIT_POLICIES in
-- services/platform/src/rate-limit/policy.ts; a row an operator already made for these keys is kept.
INSERT INTO "rate_limit_policies" ("key", "capacity", "refill_per_second") VALUES
  ('graphql:placeOrder', 20, 0.033333),
  ('graphql:placeOrder:session', 5, 0.016667)
ON CONFLICT ("key") DO NOTHING;
