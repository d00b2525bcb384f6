-- AlterTable
ALTER TABLE "return_authorizations" ADD COLUMN     "receipt_due_at" TIMESTAMPTZ(6);

-- CreateIndex
CREATE INDEX "return_authorizations_credited_receipt_due_idx" ON "return_authorizations"("receipt_due_at") WHERE (status = 'REQUESTED' AND receipt_due_at IS NOT NULL);
