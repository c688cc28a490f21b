-- AlterTable
ALTER TABLE "OrderStatusHistory" ADD COLUMN     "seq" SERIAL NOT NULL;
