-- CreateIndex
CREATE INDEX "refund_requests_requested_idx" ON "refund_requests"("updated_at") WHERE (status = 'REQUESTED');
