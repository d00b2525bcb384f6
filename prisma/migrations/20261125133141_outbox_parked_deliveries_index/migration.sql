-- CreateIndex
CREATE INDEX "outbox_deliveries_parked_idx" ON "outbox_deliveries"("listener") WHERE (status = 'parked');
