-- One row per run of OrderNotesDigestWorkflow: how many notes were written since the previous digest.
CREATE TABLE "order_note_digests" (
    "id" BIGSERIAL NOT NULL,
    -- The run's workflow id: a retried activity finds its row instead of writing a second one.
    "workflow_id" VARCHAR(255) NOT NULL,
    "period_end" TIMESTAMPTZ(6) NOT NULL,
    "notes" INTEGER NOT NULL,
    -- HMAC-SHA256 (hex) of "<workflow_id>|<period_end ISO>|<notes>" under the digest_signing_key setting; null while it is unset.
    "signature" CHAR(64),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_note_digests_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "order_note_digests_workflow_id_key" UNIQUE ("workflow_id")
);

CREATE INDEX "order_note_digests_period_end_idx" ON "order_note_digests"("period_end");
