-- Every amount column holds 3 decimals for the three-decimal currencies (KWD, BHD); 13 digits keep
-- the 10 integer digits of Decimal(12, 2). Widening a numeric keeps every stored value; it rewrites
-- the tables under an ACCESS EXCLUSIVE lock.

-- AlterTable
ALTER TABLE "cart_lines" ALTER COLUMN "unit_price" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "order_lines" ALTER COLUMN "unit_price" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "line_total" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "orders" ALTER COLUMN "subtotal" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "tax" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "shipping" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "discount" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "total" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "payment_tenders" ALTER COLUMN "authorized_amount" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "captured_amount" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "refunded_amount" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "voided_amount" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "products" ALTER COLUMN "price" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "refund_requests" ALTER COLUMN "amount" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "refunds" ALTER COLUMN "amount" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "return_receipts" ALTER COLUMN "amount" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "store_credit_entries" ALTER COLUMN "amount" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "store_credit_overdraft_drafts" ALTER COLUMN "amount" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "tender_events" ALTER COLUMN "amount" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "tracking_attributions" ALTER COLUMN "attributed_revenue" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "tracking_daily_revenue" ALTER COLUMN "revenue" SET DATA TYPE DECIMAL(15,3);
