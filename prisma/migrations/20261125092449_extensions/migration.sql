-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "expiresAt" TIMESTAMPTZ(3),
ADD COLUMN     "installationId" TEXT;

-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "installationId" TEXT,
ADD COLUMN     "pingFailureReportedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "Extension" (
    "id" TEXT NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "iframeUrl" TEXT,
    "webhookUrl" TEXT,
    "eventSubscriptions" TEXT[],
    "scopes" TEXT[],
    "installCallbackUrl" TEXT,
    "configSchema" JSONB,
    "lifecycle" TEXT NOT NULL DEFAULT 'draft',
    "iconKey" TEXT,
    "screenshotKeys" TEXT[],
    "clientId" TEXT,
    "clientSecretHash" TEXT,
    "clientSecretRotatedAt" TIMESTAMPTZ(3),
    "createdByMember" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Extension_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExtensionVersion" (
    "id" TEXT NOT NULL,
    "extensionId" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "notes" TEXT,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "manifest" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "publishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ExtensionVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Installation" (
    "id" TEXT NOT NULL,
    "extensionId" TEXT NOT NULL,
    "versionId" TEXT,
    "workspaceId" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "installSequence" INTEGER NOT NULL DEFAULT 1,
    "webhookEndpointId" UUID,
    "apiKeyId" UUID,
    "config" JSONB NOT NULL DEFAULT '{}',
    "installedBy" TEXT,
    "installedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "suspendedAt" TIMESTAMPTZ(3),
    "suspendedReason" TEXT,
    "uninstalledAt" TIMESTAMPTZ(3),
    "uninstallReason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Installation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InstallCallback" (
    "id" UUID NOT NULL,
    "installationId" TEXT NOT NULL,
    "installSequence" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" TIMESTAMPTZ(3),
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InstallCallback_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Extension_clientId_key" ON "Extension"("clientId");

-- CreateIndex
CREATE INDEX "Extension_workspaceId_createdAt_idx" ON "Extension"("workspaceId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ExtensionVersion_extensionId_version_key" ON "ExtensionVersion"("extensionId", "version");

-- CreateIndex
CREATE INDEX "Installation_applicationId_environmentId_status_idx" ON "Installation"("applicationId", "environmentId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "Installation_extensionId_applicationId_environmentId_key" ON "Installation"("extensionId", "applicationId", "environmentId");

-- CreateIndex
CREATE INDEX "InstallCallback_status_nextAttemptAt_idx" ON "InstallCallback"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "ApiKey_installationId_idx" ON "ApiKey"("installationId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookEndpoint_installationId_key" ON "WebhookEndpoint"("installationId");

-- AddForeignKey
ALTER TABLE "ExtensionVersion" ADD CONSTRAINT "ExtensionVersion_extensionId_fkey" FOREIGN KEY ("extensionId") REFERENCES "Extension"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Installation" ADD CONSTRAINT "Installation_extensionId_fkey" FOREIGN KEY ("extensionId") REFERENCES "Extension"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Installation" ADD CONSTRAINT "Installation_versionId_fkey" FOREIGN KEY ("versionId") REFERENCES "ExtensionVersion"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InstallCallback" ADD CONSTRAINT "InstallCallback_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "Installation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
