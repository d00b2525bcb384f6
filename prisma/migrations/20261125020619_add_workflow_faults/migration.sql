-- CreateTable
CREATE TABLE "workflow_faults" (
    "id" BIGSERIAL NOT NULL,
    "workflow" VARCHAR(100) NOT NULL,
    "workflow_id" VARCHAR(255) NOT NULL,
    "run_id" VARCHAR(64) NOT NULL,
    "entity_type" VARCHAR(50) NOT NULL,
    "entity_id" VARCHAR(100) NOT NULL,
    "reason" VARCHAR(100) NOT NULL,
    "details" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workflow_faults_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "workflow_faults_created_at_idx" ON "workflow_faults"("created_at");

-- CreateIndex
CREATE INDEX "workflow_faults_workflow_created_at_idx" ON "workflow_faults"("workflow", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "workflow_faults_workflow_id_run_id_reason_entity_type_entit_key" ON "workflow_faults"("workflow_id", "run_id", "reason", "entity_type", "entity_id");
