-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "idempotency_key" VARCHAR(200);

-- CreateIndex
CREATE UNIQUE INDEX "orders_idempotency_key_key" ON "orders"("idempotency_key");
