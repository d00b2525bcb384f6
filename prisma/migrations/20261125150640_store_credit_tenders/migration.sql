-- AlterTable
ALTER TABLE "payment_tenders" ALTER COLUMN "authorization_expires_at" DROP NOT NULL;

-- A card's authorization always has its expiry; store credit has none.
ALTER TABLE "payment_tenders" ADD CONSTRAINT "payment_tenders_card_authorization_check" CHECK (
  "kind" <> 'CARD' OR "authorization_expires_at" IS NOT NULL);
