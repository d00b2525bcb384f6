-- The tracking report's daily rollup (docs/tracking.md, Reports) and BRIN indexes on created_at for the
-- reports' day ranges. autosummarize (hand-added; Prisma cannot express it) has autovacuum summarize each
-- block range as soon as it is full: a range not summarized yet matches every query, so without it the
-- newest rows, the ones written since the last vacuum, would be read for any range. Building a BRIN
-- index reads the table once and blocks its writes meanwhile (seconds for millions of rows).

-- CreateTable
CREATE TABLE "tracking_daily_stats" (
    "day" DATE NOT NULL,
    "entity_type" VARCHAR(20) NOT NULL,
    "entity_id" BIGINT NOT NULL,
    "impressions" INTEGER NOT NULL,
    "clicks" INTEGER NOT NULL,
    "repeat_clicks" INTEGER NOT NULL,
    "unique_sessions" INTEGER NOT NULL,
    "cart_adds" INTEGER NOT NULL,
    "purchases" INTEGER NOT NULL,

    CONSTRAINT "tracking_daily_stats_pkey" PRIMARY KEY ("day","entity_type","entity_id")
);

-- CreateTable
CREATE TABLE "tracking_daily_revenue" (
    "day" DATE NOT NULL,
    "entity_type" VARCHAR(20) NOT NULL,
    "entity_id" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "revenue" DECIMAL(14,2) NOT NULL,

    CONSTRAINT "tracking_daily_revenue_pkey" PRIMARY KEY ("day","entity_type","entity_id","currency")
);

-- CreateTable
CREATE TABLE "tracking_rollup_days" (
    "day" DATE NOT NULL,
    "rolled_up_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tracking_rollup_days_pkey" PRIMARY KEY ("day")
);

-- CreateIndex
CREATE INDEX "tracking_daily_stats_entity_type_entity_id_day_idx" ON "tracking_daily_stats"("entity_type", "entity_id", "day");

-- CreateIndex
CREATE INDEX "tracking_attributions_created_at_idx" ON "tracking_attributions" USING BRIN ("created_at") WITH (autosummarize = on);

-- CreateIndex
CREATE INDEX "tracking_events_created_at_idx" ON "tracking_events" USING BRIN ("created_at") WITH (autosummarize = on);
