-- AlterTable
ALTER TABLE "Email" ADD COLUMN     "replyTo" TEXT;
