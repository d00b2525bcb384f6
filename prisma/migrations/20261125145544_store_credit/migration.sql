-- CreateEnum
CREATE TYPE "StoreCreditEntryKind" AS ENUM ('CREDIT', 'DEBIT');

-- CreateEnum
CREATE TYPE "StoreCreditEntryStatus" AS ENUM ('PENDING', 'POSTED', 'VOIDED');

-- CreateEnum
CREATE TYPE "OverdraftReason" AS ENUM ('REFUND_CLAWBACK', 'CHECKOUT_RACE');

-- CreateEnum
CREATE TYPE "OverdraftDraftStatus" AS ENUM ('DRAFT', 'EXPIRED');

-- CreateTable
CREATE TABLE "store_credit_accounts" (
    "id" BIGSERIAL NOT NULL,
    "customer_id" BIGINT,
    "code" VARCHAR(64),
    "currency" CHAR(3) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "store_credit_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_credit_entries" (
    "id" BIGSERIAL NOT NULL,
    "account_id" BIGINT NOT NULL,
    "kind" "StoreCreditEntryKind" NOT NULL,
    "status" "StoreCreditEntryStatus" NOT NULL,
    "amount" DECIMAL(12,2) NOT NULL,
    "idempotency_key" VARCHAR(255) NOT NULL,
    "note" VARCHAR(500) NOT NULL,
    "order_id" BIGINT,
    "staff_user_id" BIGINT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "store_credit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_credit_overdraft_drafts" (
    "id" BIGSERIAL NOT NULL,
    "account_id" BIGINT NOT NULL,
    "entry_id" BIGINT NOT NULL,
    "reason" "OverdraftReason" NOT NULL,
    "status" "OverdraftDraftStatus" NOT NULL,
    "amount" DECIMAL(12,2) NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "store_credit_overdraft_drafts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "store_credit_accounts_code_key" ON "store_credit_accounts"("code");

-- CreateIndex
CREATE UNIQUE INDEX "store_credit_accounts_customer_id_currency_key" ON "store_credit_accounts"("customer_id", "currency");

-- CreateIndex
CREATE UNIQUE INDEX "store_credit_entries_idempotency_key_key" ON "store_credit_entries"("idempotency_key");

-- CreateIndex
CREATE INDEX "store_credit_entries_account_id_id_idx" ON "store_credit_entries"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "store_credit_overdraft_drafts_entry_id_key" ON "store_credit_overdraft_drafts"("entry_id");

-- CreateIndex
CREATE INDEX "store_credit_overdraft_drafts_account_id_idx" ON "store_credit_overdraft_drafts"("account_id");

-- CreateIndex
CREATE INDEX "store_credit_overdraft_drafts_open_expiry_idx" ON "store_credit_overdraft_drafts"("expires_at") WHERE (status = 'DRAFT');

-- AddForeignKey
ALTER TABLE "store_credit_accounts" ADD CONSTRAINT "store_credit_accounts_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_credit_entries" ADD CONSTRAINT "store_credit_entries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "store_credit_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_credit_overdraft_drafts" ADD CONSTRAINT "store_credit_overdraft_drafts_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "store_credit_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_credit_overdraft_drafts" ADD CONSTRAINT "store_credit_overdraft_drafts_entry_id_fkey" FOREIGN KEY ("entry_id") REFERENCES "store_credit_entries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Amounts are positive; a draft's overdraft never exceeds the debit it let through (checked in the domain).
ALTER TABLE "store_credit_entries" ADD CONSTRAINT "store_credit_entries_amount_check" CHECK ("amount" > 0);
ALTER TABLE "store_credit_overdraft_drafts" ADD CONSTRAINT "store_credit_overdraft_drafts_amount_check" CHECK ("amount" > 0);

-- The ledger is append-only: an entry is never deleted, and only a PENDING entry's status may change, to POSTED or VOIDED.
CREATE FUNCTION "store_credit_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD."status" = 'PENDING' AND NEW."status" IN ('POSTED', 'VOIDED')
     AND (NEW."id", NEW."account_id", NEW."kind", NEW."amount", NEW."idempotency_key", NEW."note", NEW."order_id", NEW."staff_user_id", NEW."created_at")
         IS NOT DISTINCT FROM (OLD."id", OLD."account_id", OLD."kind", OLD."amount", OLD."idempotency_key", OLD."note", OLD."order_id", OLD."staff_user_id", OLD."created_at") THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'store_credit_entries is append-only: % refused', TG_OP;
END $$;
CREATE TRIGGER "store_credit_entries_append_only" BEFORE UPDATE OR DELETE ON "store_credit_entries"
  FOR EACH ROW EXECUTE FUNCTION "store_credit_entries_append_only"();
