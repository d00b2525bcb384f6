-- AlterTable
ALTER TABLE "payment_tenders" ADD COLUMN     "cart_digest" CHAR(64),
ADD COLUMN     "hold_expires_at" TIMESTAMPTZ(6);

-- CreateIndex
CREATE INDEX "payment_tenders_cart_hold_idx" ON "payment_tenders"("hold_expires_at") WHERE (status = 'AUTHORIZED' AND order_id IS NULL);

-- Only a card is authorized before its order, and such a cart tender carries its hold and the cart it was authorized for.
ALTER TABLE "payment_tenders" ADD CONSTRAINT "payment_tenders_cart_tender_check" CHECK (
  "order_id" IS NOT NULL OR ("kind" = 'CARD' AND "hold_expires_at" IS NOT NULL AND "cart_digest" IS NOT NULL));
