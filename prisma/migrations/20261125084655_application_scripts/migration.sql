-- CreateTable
CREATE TABLE "ApplicationScript" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "src" TEXT,
    "inline" TEXT,
    "placement" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "sha256" TEXT NOT NULL,
    "sizeBytes" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApplicationScript_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApplicationScriptAsset" (
    "scriptId" UUID NOT NULL,
    "sha256" TEXT NOT NULL,
    "body" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApplicationScriptAsset_pkey" PRIMARY KEY ("scriptId","sha256")
);

-- CreateTable
CREATE TABLE "ApplicationScriptKillSwitch" (
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "changedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApplicationScriptKillSwitch_pkey" PRIMARY KEY ("applicationId","environmentId")
);

-- CreateTable
CREATE TABLE "ApplicationScriptBeacon" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "checkoutSessionId" UUID NOT NULL,
    "scriptId" UUID,
    "type" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "blockedUri" TEXT,
    "violatedDirective" TEXT,
    "dedupeKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApplicationScriptBeacon_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ApplicationScript_applicationId_environmentId_createdAt_idx" ON "ApplicationScript"("applicationId", "environmentId", "createdAt");

-- CreateIndex
CREATE INDEX "ApplicationScriptBeacon_applicationId_environmentId_created_idx" ON "ApplicationScriptBeacon"("applicationId", "environmentId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ApplicationScriptBeacon_checkoutSessionId_dedupeKey_key" ON "ApplicationScriptBeacon"("checkoutSessionId", "dedupeKey");

-- AddForeignKey
ALTER TABLE "ApplicationScriptAsset" ADD CONSTRAINT "ApplicationScriptAsset_scriptId_fkey" FOREIGN KEY ("scriptId") REFERENCES "ApplicationScript"("id") ON DELETE CASCADE ON UPDATE CASCADE;
