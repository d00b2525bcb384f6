-- CreateEnum
CREATE TYPE "TenderKind" AS ENUM ('CARD', 'STORE_CREDIT', 'GIFT_CARD');

-- CreateEnum
CREATE TYPE "TenderStatus" AS ENUM ('AUTHORIZED', 'CAPTURED', 'VOIDED', 'REFUNDED');

-- CreateEnum
CREATE TYPE "TenderEventKind" AS ENUM ('AUTHORIZED', 'CAPTURED', 'VOIDED', 'REFUNDED');

-- CreateTable
CREATE TABLE "payment_tenders" (
    "id" BIGSERIAL NOT NULL,
    "cart_id" BIGINT,
    "order_id" BIGINT,
    "kind" "TenderKind" NOT NULL,
    "status" "TenderStatus" NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "authorized_amount" DECIMAL(12,2) NOT NULL,
    "captured_amount" DECIMAL(12,2) NOT NULL DEFAULT 0,
    "refunded_amount" DECIMAL(12,2) NOT NULL DEFAULT 0,
    "voided_amount" DECIMAL(12,2) NOT NULL DEFAULT 0,
    "gateway_reference" VARCHAR(255) NOT NULL,
    "idempotency_key" VARCHAR(255) NOT NULL,
    "authorization_expires_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "payment_tenders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tender_events" (
    "id" BIGSERIAL NOT NULL,
    "tender_id" BIGINT NOT NULL,
    "kind" "TenderEventKind" NOT NULL,
    "amount" DECIMAL(12,2) NOT NULL,
    "idempotency_key" VARCHAR(255) NOT NULL,
    "gateway_operation_id" VARCHAR(255) NOT NULL,
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tender_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "payment_tenders_idempotency_key_key" ON "payment_tenders"("idempotency_key");

-- CreateIndex
CREATE INDEX "payment_tenders_cart_id_idx" ON "payment_tenders"("cart_id");

-- CreateIndex
CREATE INDEX "payment_tenders_order_id_idx" ON "payment_tenders"("order_id");

-- CreateIndex
CREATE INDEX "payment_tenders_authorized_expiry_idx" ON "payment_tenders"("authorization_expires_at") WHERE (status = 'AUTHORIZED');

-- CreateIndex
CREATE UNIQUE INDEX "payment_tenders_gateway_reference_key" ON "payment_tenders"("gateway_reference");

-- CreateIndex
CREATE UNIQUE INDEX "tender_events_idempotency_key_key" ON "tender_events"("idempotency_key");

-- CreateIndex
CREATE INDEX "tender_events_tender_id_id_idx" ON "tender_events"("tender_id", "id");

-- AddForeignKey
ALTER TABLE "payment_tenders" ADD CONSTRAINT "payment_tenders_cart_id_fkey" FOREIGN KEY ("cart_id") REFERENCES "carts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_tenders" ADD CONSTRAINT "payment_tenders_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tender_events" ADD CONSTRAINT "tender_events_tender_id_fkey" FOREIGN KEY ("tender_id") REFERENCES "payment_tenders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- What the gateway holds, took and gave back never goes below zero nor beyond what was authorized or captured.
ALTER TABLE "payment_tenders" ADD CONSTRAINT "payment_tenders_amounts_check" CHECK (
  "authorized_amount" > 0 AND "captured_amount" >= 0 AND "refunded_amount" >= 0 AND "voided_amount" >= 0
  AND "captured_amount" + "voided_amount" <= "authorized_amount"
  AND "refunded_amount" <= "captured_amount");

-- The tender event log is append-only.
CREATE FUNCTION "tender_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'tender_events is append-only: % refused', TG_OP;
END $$;
CREATE TRIGGER "tender_events_append_only" BEFORE UPDATE OR DELETE ON "tender_events"
  FOR EACH ROW EXECUTE FUNCTION "tender_events_append_only"();
