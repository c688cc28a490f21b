-- AlterTable
ALTER TABLE "PlatformPaymentMethod" ADD COLUMN     "isBackup" BOOLEAN NOT NULL DEFAULT false;
