-- AlterTable
ALTER TABLE "products" ADD COLUMN     "image_key" VARCHAR(512);
