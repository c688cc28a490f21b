-- CreateTable
CREATE TABLE "OAuthRecord" (
    "kind" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "grantId" TEXT,
    "uid" TEXT,
    "userCode" TEXT,
    "expiresAt" TIMESTAMPTZ(3),
    "consumedAt" TIMESTAMPTZ(3),

    CONSTRAINT "OAuthRecord_pkey" PRIMARY KEY ("kind","id")
);

-- CreateTable
CREATE TABLE "OAuthGrant" (
    "id" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientName" TEXT,
    "workspaceId" UUID NOT NULL,
    "memberId" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "scopes" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMPTZ(3),
    "revokedReason" TEXT,

    CONSTRAINT "OAuthGrant_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OAuthRecord_grantId_idx" ON "OAuthRecord"("grantId");

-- CreateIndex
CREATE INDEX "OAuthRecord_uid_idx" ON "OAuthRecord"("uid");

-- CreateIndex
CREATE INDEX "OAuthRecord_expiresAt_idx" ON "OAuthRecord"("expiresAt");

-- CreateIndex
CREATE INDEX "OAuthGrant_memberId_revokedAt_idx" ON "OAuthGrant"("memberId", "revokedAt");
