-- Storefront access tokens (docs/rate-limiting.md): only the SHA-256 of each token is stored.
CREATE TABLE "storefront_tokens" (
    "id" BIGSERIAL NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_staff_user_id" BIGINT,
    "last_used_at" TIMESTAMPTZ(6),
    "revoked_at" TIMESTAMPTZ(6),

    CONSTRAINT "storefront_tokens_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "storefront_tokens_token_hash_key" ON "storefront_tokens"("token_hash");

ALTER TABLE "storefront_tokens" ADD CONSTRAINT "storefront_tokens_created_by_staff_user_id_fkey" FOREIGN KEY ("created_by_staff_user_id") REFERENCES "staff_users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The policies of requests a BFF sends with its token, per token. The same values as
-- DEFAULT_RATE_LIMIT_POLICIES in services/platform/src/rate-limit/policy.ts; a row an operator already
-- made for these keys is kept.
INSERT INTO "rate_limit_policies" ("key", "capacity", "refill_per_second") VALUES
  ('bff:graphql', 2000, 200),
  ('bff:track', 1200, 200)
ON CONFLICT ("key") DO NOTHING;
