-- AlterTable
ALTER TABLE "ImportPlannedKey" DROP CONSTRAINT "ImportPlannedKey_pkey",
ADD CONSTRAINT "ImportPlannedKey_pkey" PRIMARY KEY ("key", "importId");
