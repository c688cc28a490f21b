-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "seq" SERIAL NOT NULL;
