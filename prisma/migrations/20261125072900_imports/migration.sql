-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "importId" UUID;

-- CreateTable
CREATE TABLE "Import" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "entityType" TEXT NOT NULL,
    "provider" TEXT,
    "status" TEXT NOT NULL DEFAULT 'created',
    "fileName" TEXT NOT NULL,
    "fileFormat" TEXT NOT NULL,
    "fileBytes" INTEGER NOT NULL,
    "fileKey" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "uploadedBytes" INTEGER,
    "uploadedAt" TIMESTAMPTZ(3),
    "dialect" JSONB,
    "headers" JSONB,
    "columns" JSONB,
    "dateOrder" TEXT,
    "emptyPaymentPolicy" TEXT,
    "guestSentinels" JSONB NOT NULL DEFAULT '[]',
    "createMissingCustomers" BOOLEAN NOT NULL DEFAULT false,
    "sheetName" TEXT,
    "rowsTotal" INTEGER,
    "rowsProcessed" INTEGER NOT NULL DEFAULT 0,
    "rowsCreated" INTEGER NOT NULL DEFAULT 0,
    "rowsUpdated" INTEGER NOT NULL DEFAULT 0,
    "rowsSkipped" INTEGER NOT NULL DEFAULT 0,
    "rowsFailed" INTEGER NOT NULL DEFAULT 0,
    "lastPassMode" TEXT,
    "errorSummary" JSONB NOT NULL DEFAULT '{}',
    "dryRunAt" TIMESTAMPTZ(3),
    "committedAt" TIMESTAMPTZ(3),
    "failureReason" TEXT,
    "undoResult" JSONB,
    "checkpointRow" INTEGER NOT NULL DEFAULT 0,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Import_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportError" (
    "id" UUID NOT NULL,
    "importId" UUID NOT NULL,
    "rowNumber" INTEGER NOT NULL,
    "columnName" TEXT,
    "code" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportError_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportRecord" (
    "id" UUID NOT NULL,
    "importId" UUID NOT NULL,
    "entityType" TEXT NOT NULL,
    "entityId" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "rowNumber" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportRecord_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Import_applicationId_environmentId_createdAt_idx" ON "Import"("applicationId", "environmentId", "createdAt");

-- CreateIndex
CREATE INDEX "ImportError_importId_rowNumber_idx" ON "ImportError"("importId", "rowNumber");

-- CreateIndex
CREATE UNIQUE INDEX "ImportRecord_importId_entityType_entityId_key" ON "ImportRecord"("importId", "entityType", "entityId");

-- AddForeignKey
ALTER TABLE "ImportError" ADD CONSTRAINT "ImportError_importId_fkey" FOREIGN KEY ("importId") REFERENCES "Import"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImportRecord" ADD CONSTRAINT "ImportRecord_importId_fkey" FOREIGN KEY ("importId") REFERENCES "Import"("id") ON DELETE CASCADE ON UPDATE CASCADE;
