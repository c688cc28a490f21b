-- AlterTable
ALTER TABLE "Customer" ADD COLUMN     "billingAddress" JSONB,
ADD COLUMN     "shippingAddress" JSONB;
