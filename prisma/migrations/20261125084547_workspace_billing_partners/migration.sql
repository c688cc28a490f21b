-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "isPartner" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "trialEndsAt" TIMESTAMPTZ(3),
ADD COLUMN     "trialExpiredAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "PlatformSubscription" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "plan" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "interval" TEXT NOT NULL,
    "currentPeriodStart" TIMESTAMPTZ(3) NOT NULL,
    "currentPeriodEnd" TIMESTAMPTZ(3) NOT NULL,
    "cancelAtPeriodEnd" BOOLEAN NOT NULL DEFAULT false,
    "cancelledAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PlatformSubscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PlatformPaymentMethod" (
    "id" TEXT NOT NULL,
    "workspaceId" UUID NOT NULL,
    "cardBrand" TEXT NOT NULL,
    "cardLastFour" TEXT NOT NULL,
    "cardExpMonth" INTEGER NOT NULL,
    "cardExpYear" INTEGER NOT NULL,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "processorReference" TEXT NOT NULL,
    "deletedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PlatformPaymentMethod_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PlatformCharge" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "plan" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "paymentMethodId" TEXT,
    "processorPaymentId" TEXT,
    "failureCode" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PlatformCharge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PartnerReferral" (
    "id" UUID NOT NULL,
    "partnerWorkspaceId" UUID NOT NULL,
    "clientWorkspaceId" UUID NOT NULL,
    "clientEmail" TEXT NOT NULL,
    "handoffState" TEXT NOT NULL DEFAULT 'not_started',
    "handoffTokenHash" TEXT,
    "handoffExpiresAt" TIMESTAMPTZ(3),
    "invitedAt" TIMESTAMPTZ(3),
    "claimedAt" TIMESTAMPTZ(3),
    "createdByMemberId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PartnerReferral_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PlatformSubscription_workspaceId_key" ON "PlatformSubscription"("workspaceId");

-- CreateIndex
CREATE INDEX "PlatformSubscription_status_currentPeriodEnd_idx" ON "PlatformSubscription"("status", "currentPeriodEnd");

-- CreateIndex
CREATE INDEX "PlatformPaymentMethod_workspaceId_createdAt_idx" ON "PlatformPaymentMethod"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "PlatformCharge_workspaceId_createdAt_idx" ON "PlatformCharge"("workspaceId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PartnerReferral_clientWorkspaceId_key" ON "PartnerReferral"("clientWorkspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "PartnerReferral_handoffTokenHash_key" ON "PartnerReferral"("handoffTokenHash");

-- CreateIndex
CREATE INDEX "PartnerReferral_partnerWorkspaceId_createdAt_idx" ON "PartnerReferral"("partnerWorkspaceId", "createdAt");

-- AddForeignKey
ALTER TABLE "PlatformSubscription" ADD CONSTRAINT "PlatformSubscription_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlatformPaymentMethod" ADD CONSTRAINT "PlatformPaymentMethod_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlatformCharge" ADD CONSTRAINT "PlatformCharge_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PartnerReferral" ADD CONSTRAINT "PartnerReferral_partnerWorkspaceId_fkey" FOREIGN KEY ("partnerWorkspaceId") REFERENCES "Workspace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PartnerReferral" ADD CONSTRAINT "PartnerReferral_clientWorkspaceId_fkey" FOREIGN KEY ("clientWorkspaceId") REFERENCES "Workspace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Workspaces created before platform billing existed keep working in production (grandfathered as live).
UPDATE "Workspace" SET "live" = true;
