-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "completedAt" TIMESTAMPTZ(3),
ADD COLUMN     "externalId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Order_applicationId_environmentId_externalId_key" ON "Order"("applicationId", "environmentId", "externalId");
