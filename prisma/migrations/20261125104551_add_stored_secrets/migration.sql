-- CreateTable
CREATE TABLE "stored_secrets" (
    "key" VARCHAR(200) NOT NULL,
    "key_id" VARCHAR(32) NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "set_at" TIMESTAMPTZ(6) NOT NULL,
    "set_by_staff_user_id" BIGINT,

    CONSTRAINT "stored_secrets_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "stored_secrets_key_id_idx" ON "stored_secrets"("key_id");

-- AddForeignKey
ALTER TABLE "stored_secrets" ADD CONSTRAINT "stored_secrets_set_by_staff_user_id_fkey" FOREIGN KEY ("set_by_staff_user_id") REFERENCES "staff_users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
