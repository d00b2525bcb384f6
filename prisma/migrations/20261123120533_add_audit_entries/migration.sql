-- CreateTable
CREATE TABLE "audit_entries" (
    "id" BIGSERIAL NOT NULL,
    "event_id" UUID NOT NULL,
    "topic" VARCHAR(200) NOT NULL,
    "entity_id" VARCHAR(200) NOT NULL,
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_entries_event_id_key" ON "audit_entries"("event_id");

-- CreateIndex
CREATE INDEX "audit_entries_topic_entity_id_idx" ON "audit_entries"("topic", "entity_id");

-- CreateIndex
CREATE INDEX "audit_entries_occurred_at_idx" ON "audit_entries"("occurred_at");
