-- CreateIndex
CREATE INDEX "outbox_events_pending_dispatch_idx" ON "outbox_events"("next_attempt_at", "id") WHERE (dispatched_at IS NULL AND published_at IS NULL);
