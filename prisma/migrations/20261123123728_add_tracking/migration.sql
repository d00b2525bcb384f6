-- CreateTable
CREATE TABLE "tracking_events" (
    "id" BIGSERIAL NOT NULL,
    "event_type" VARCHAR(20) NOT NULL,
    "entity_type" VARCHAR(20) NOT NULL,
    "entity_id" BIGINT NOT NULL,
    "user_id" BIGINT,
    "customer_group_id" BIGINT,
    "is_authenticated" BOOLEAN NOT NULL,
    "session_id" VARCHAR(255) NOT NULL,
    "ip_address" VARCHAR(45) NOT NULL,
    "user_agent" VARCHAR(500) NOT NULL,
    "page_url" VARCHAR(500) NOT NULL,
    "referrer_url" VARCHAR(500) NOT NULL,
    "is_repeat" BOOLEAN NOT NULL,
    "channel_id" BIGINT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tracking_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tracking_attributions" (
    "id" BIGSERIAL NOT NULL,
    "tracking_event_id" BIGINT NOT NULL,
    "attribution_type" VARCHAR(20) NOT NULL,
    "product_id" BIGINT,
    "category_id" BIGINT,
    "brand_id" BIGINT,
    "order_id" BIGINT,
    "attributed_revenue" DECIMAL(12,2),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tracking_attributions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tracking_events_entity_type_entity_id_created_at_idx" ON "tracking_events"("entity_type", "entity_id", "created_at");

-- CreateIndex
CREATE INDEX "tracking_events_user_id_created_at_idx" ON "tracking_events"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "tracking_events_session_id_entity_type_entity_id_idx" ON "tracking_events"("session_id", "entity_type", "entity_id");

-- CreateIndex
CREATE INDEX "tracking_attributions_tracking_event_id_idx" ON "tracking_attributions"("tracking_event_id");

-- CreateIndex
CREATE UNIQUE INDEX "tracking_attributions_cart_add_key" ON "tracking_attributions"("tracking_event_id", "product_id") WHERE ((attribution_type)::text = 'cart_add'::text);

-- CreateIndex
CREATE UNIQUE INDEX "tracking_attributions_purchase_key" ON "tracking_attributions"("tracking_event_id", "order_id", "product_id") WHERE ((attribution_type)::text = 'purchase'::text);

-- AddForeignKey
ALTER TABLE "tracking_attributions" ADD CONSTRAINT "tracking_attributions_tracking_event_id_fkey" FOREIGN KEY ("tracking_event_id") REFERENCES "tracking_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rules Prisma cannot express: the database refuses what the tracking code must never write.
ALTER TABLE "tracking_events" ADD CONSTRAINT "tracking_events_event_type_check" CHECK ("event_type" IN ('impression', 'click'));
ALTER TABLE "tracking_events" ADD CONSTRAINT "tracking_events_entity_type_check" CHECK ("entity_type" IN ('banner', 'slide', 'hero'));
ALTER TABLE "tracking_events" ADD CONSTRAINT "tracking_events_impression_not_repeat_check" CHECK ("event_type" = 'click' OR NOT "is_repeat");
ALTER TABLE "tracking_attributions" ADD CONSTRAINT "tracking_attributions_type_check" CHECK ("attribution_type" IN ('cart_add', 'purchase'));
ALTER TABLE "tracking_attributions" ADD CONSTRAINT "tracking_attributions_purchase_check" CHECK ("attribution_type" <> 'purchase' OR ("order_id" IS NOT NULL AND "attributed_revenue" IS NOT NULL));
