-- CreateEnum
CREATE TYPE "RefundRequestSource" AS ENUM ('STAFF', 'RMA');

-- CreateEnum
CREATE TYPE "RefundRequestStatus" AS ENUM ('REQUESTED', 'SUCCEEDED', 'NEEDS_ATTENTION');

-- CreateEnum
CREATE TYPE "RefundDestination" AS ENUM ('ORIGINAL', 'STORE_CREDIT');

-- CreateEnum
CREATE TYPE "RefundStatus" AS ENUM ('REQUESTED', 'PENDING', 'SUCCEEDED', 'FAILED', 'CANCELED');

-- CreateTable
CREATE TABLE "refund_requests" (
    "id" BIGSERIAL NOT NULL,
    "order_id" BIGINT NOT NULL,
    "amount" DECIMAL(12,2) NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "reason" VARCHAR(500) NOT NULL,
    "source" "RefundRequestSource" NOT NULL,
    "staff_user_id" BIGINT,
    "rma_id" BIGINT,
    "idempotency_key" VARCHAR(255) NOT NULL,
    "status" "RefundRequestStatus" NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "refund_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "refunds" (
    "id" BIGSERIAL NOT NULL,
    "refund_request_id" BIGINT NOT NULL,
    "tender_id" BIGINT NOT NULL,
    "amount" DECIMAL(12,2) NOT NULL,
    "destination" "RefundDestination" NOT NULL,
    "status" "RefundStatus" NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "gateway_refund_id" VARCHAR(255),
    "settles_at" TIMESTAMPTZ(6),
    "last_error" VARCHAR(1000),
    "replaces_id" BIGINT,
    "settled_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "refund_requests_idempotency_key_key" ON "refund_requests"("idempotency_key");

-- CreateIndex
CREATE INDEX "refund_requests_order_id_id_idx" ON "refund_requests"("order_id", "id");

-- CreateIndex
CREATE INDEX "refund_requests_rma_id_idx" ON "refund_requests"("rma_id");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_replaces_id_key" ON "refunds"("replaces_id");

-- CreateIndex
CREATE INDEX "refunds_refund_request_id_id_idx" ON "refunds"("refund_request_id", "id");

-- CreateIndex
CREATE INDEX "refunds_tender_id_idx" ON "refunds"("tender_id");

-- AddForeignKey
ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_refund_request_id_fkey" FOREIGN KEY ("refund_request_id") REFERENCES "refund_requests"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_tender_id_fkey" FOREIGN KEY ("tender_id") REFERENCES "payment_tenders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_replaces_id_fkey" FOREIGN KEY ("replaces_id") REFERENCES "refunds"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A request says who asked: a staff user, or a return (the rmas' foreign key comes with their table).
ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_source_check" CHECK (
  ("source" = 'STAFF' AND "staff_user_id" IS NOT NULL AND "rma_id" IS NULL)
  OR ("source" = 'RMA' AND "rma_id" IS NOT NULL));

ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_amount_check" CHECK ("amount" > 0);

ALTER TABLE "refunds" ADD CONSTRAINT "refunds_amount_check" CHECK ("amount" > 0 AND "attempt" >= 1);
