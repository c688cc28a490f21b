-- CreateTable
CREATE TABLE "ImportPlannedKey" (
    "importId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "ext" TEXT,

    CONSTRAINT "ImportPlannedKey_pkey" PRIMARY KEY ("importId","key")
);

-- AddForeignKey
ALTER TABLE "ImportPlannedKey" ADD CONSTRAINT "ImportPlannedKey_importId_fkey" FOREIGN KEY ("importId") REFERENCES "Import"("id") ON DELETE CASCADE ON UPDATE CASCADE;
