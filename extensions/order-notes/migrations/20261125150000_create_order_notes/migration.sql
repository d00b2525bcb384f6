-- A note on an order. author_staff_user_id is null for the notes the extension writes on a status change.
CREATE TABLE "order_notes" (
    "id" BIGSERIAL NOT NULL,
    "order_id" BIGINT NOT NULL,
    "body" VARCHAR(2000) NOT NULL,
    "author_staff_user_id" BIGINT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_notes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "order_notes_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE,
    CONSTRAINT "order_notes_author_staff_user_id_fkey" FOREIGN KEY ("author_staff_user_id") REFERENCES "staff_users"("id") ON DELETE SET NULL
);

CREATE INDEX "order_notes_order_id_id_idx" ON "order_notes"("order_id", "id");
