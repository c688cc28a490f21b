-- AlterTable
ALTER TABLE "QuoteRevision" ADD COLUMN     "taxCountry" TEXT,
ADD COLUMN     "taxLines" JSONB NOT NULL DEFAULT '[]';
