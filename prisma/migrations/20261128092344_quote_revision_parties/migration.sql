-- AlterTable
ALTER TABLE "QuoteRevision" ADD COLUMN     "notes" TEXT,
ADD COLUMN     "parties" JSONB,
ADD COLUMN     "terms" TEXT;
