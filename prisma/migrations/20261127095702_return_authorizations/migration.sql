-- CreateEnum
CREATE TYPE "ReturnStatus" AS ENUM ('DRAFT', 'REQUESTED', 'PARTIALLY_RECEIVED', 'RECEIVED', 'REFUNDED', 'CANCELLED', 'EXPIRED');

-- CreateTable
CREATE TABLE "return_authorizations" (
    "id" BIGSERIAL NOT NULL,
    "order_id" BIGINT NOT NULL,
    "status" "ReturnStatus" NOT NULL,
    "reason" VARCHAR(500) NOT NULL,
    "draft_expires_at" TIMESTAMPTZ(6) NOT NULL,
    "created_by_staff_id" BIGINT,
    "requested_at" TIMESTAMPTZ(6),
    "received_at" TIMESTAMPTZ(6),
    "refunded_at" TIMESTAMPTZ(6),
    "closed_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "return_authorizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "return_authorization_lines" (
    "id" BIGSERIAL NOT NULL,
    "return_authorization_id" BIGINT NOT NULL,
    "order_line_id" BIGINT NOT NULL,
    "quantity_requested" INTEGER NOT NULL,
    "quantity_received" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "return_authorization_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "return_receipts" (
    "id" BIGSERIAL NOT NULL,
    "return_authorization_id" BIGINT NOT NULL,
    "idempotency_key" VARCHAR(255) NOT NULL,
    "amount" DECIMAL(12,2) NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "staff_user_id" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "return_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "return_receipt_lines" (
    "id" BIGSERIAL NOT NULL,
    "receipt_id" BIGINT NOT NULL,
    "return_line_id" BIGINT NOT NULL,
    "quantity" INTEGER NOT NULL,

    CONSTRAINT "return_receipt_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "return_authorizations_order_id_idx" ON "return_authorizations"("order_id");

-- CreateIndex
CREATE INDEX "return_authorizations_open_draft_expiry_idx" ON "return_authorizations"("draft_expires_at") WHERE (status = 'DRAFT');

-- CreateIndex
CREATE INDEX "return_authorization_lines_order_line_id_idx" ON "return_authorization_lines"("order_line_id");

-- CreateIndex
CREATE UNIQUE INDEX "return_authorization_lines_return_authorization_id_order_li_key" ON "return_authorization_lines"("return_authorization_id", "order_line_id");

-- CreateIndex
CREATE UNIQUE INDEX "return_receipts_idempotency_key_key" ON "return_receipts"("idempotency_key");

-- CreateIndex
CREATE INDEX "return_receipts_return_authorization_id_idx" ON "return_receipts"("return_authorization_id");

-- CreateIndex
CREATE INDEX "return_receipt_lines_return_line_id_idx" ON "return_receipt_lines"("return_line_id");

-- CreateIndex
CREATE UNIQUE INDEX "return_receipt_lines_receipt_id_return_line_id_key" ON "return_receipt_lines"("receipt_id", "return_line_id");

-- AddForeignKey
ALTER TABLE "return_authorizations" ADD CONSTRAINT "return_authorizations_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "return_authorization_lines" ADD CONSTRAINT "return_authorization_lines_return_authorization_id_fkey" FOREIGN KEY ("return_authorization_id") REFERENCES "return_authorizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "return_authorization_lines" ADD CONSTRAINT "return_authorization_lines_order_line_id_fkey" FOREIGN KEY ("order_line_id") REFERENCES "order_lines"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "return_receipts" ADD CONSTRAINT "return_receipts_return_authorization_id_fkey" FOREIGN KEY ("return_authorization_id") REFERENCES "return_authorizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "return_receipt_lines" ADD CONSTRAINT "return_receipt_lines_receipt_id_fkey" FOREIGN KEY ("receipt_id") REFERENCES "return_receipts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "return_receipt_lines" ADD CONSTRAINT "return_receipt_lines_return_line_id_fkey" FOREIGN KEY ("return_line_id") REFERENCES "return_authorization_lines"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A line asks back at least one unit, and never receives more than it asked; a receipt line receives at least one.
ALTER TABLE "return_authorization_lines" ADD CONSTRAINT "return_authorization_lines_quantities_check"
  CHECK ("quantity_requested" > 0 AND "quantity_received" >= 0 AND "quantity_received" <= "quantity_requested");
ALTER TABLE "return_receipt_lines" ADD CONSTRAINT "return_receipt_lines_quantity_check" CHECK ("quantity" > 0);
ALTER TABLE "return_receipts" ADD CONSTRAINT "return_receipts_amount_check" CHECK ("amount" >= 0);
