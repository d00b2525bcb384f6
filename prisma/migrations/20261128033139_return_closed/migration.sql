-- AlterEnum
ALTER TYPE "ReturnStatus" ADD VALUE 'CLOSED';

-- DropIndex
DROP INDEX "return_authorizations_credited_receipt_due_idx";

-- CreateIndex
CREATE INDEX "return_authorizations_credited_receipt_due_idx" ON "return_authorizations"("receipt_due_at") WHERE ((status = 'REQUESTED' OR status = 'PARTIALLY_RECEIVED') AND receipt_due_at IS NOT NULL);
