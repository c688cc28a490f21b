-- AlterTable
ALTER TABLE "CheckoutSession" ADD COLUMN     "recurring" JSONB;

-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "savedCardId" TEXT,
ADD COLUMN     "subscriptionId" UUID;

-- CreateTable
CREATE TABLE "Subscription" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'auto',
    "planReference" TEXT NOT NULL,
    "planName" TEXT,
    "interval" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "currency" TEXT NOT NULL,
    "currentPeriodStart" TIMESTAMPTZ(3) NOT NULL,
    "currentPeriodEnd" TIMESTAMPTZ(3) NOT NULL,
    "trialEnd" TIMESTAMPTZ(3),
    "cancelAtPeriodEnd" BOOLEAN NOT NULL DEFAULT false,
    "cancelledAt" TIMESTAMPTZ(3),
    "failureCount" INTEGER NOT NULL DEFAULT 0,
    "nextRetryAt" TIMESTAMPTZ(3),
    "pendingPlanReference" TEXT,
    "pendingPlanName" TEXT,
    "pendingInterval" TEXT,
    "pendingAmount" INTEGER,
    "pendingQuantity" INTEGER,
    "creditAmount" INTEGER NOT NULL DEFAULT 0,
    "leaseOwner" TEXT,
    "leaseUntil" TIMESTAMPTZ(3),
    "checkoutSessionId" UUID,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Subscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SubscriptionStatusHistory" (
    "id" UUID NOT NULL,
    "seq" SERIAL NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "fromStatus" TEXT,
    "toStatus" TEXT NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "reason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SubscriptionStatusHistory_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TrialRedemption" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "planReference" TEXT NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TrialRedemption_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SavedCard" (
    "id" TEXT NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "methodType" TEXT NOT NULL DEFAULT 'card',
    "cardBrand" TEXT NOT NULL,
    "cardLastFour" TEXT NOT NULL,
    "cardExpMonth" INTEGER NOT NULL,
    "cardExpYear" INTEGER NOT NULL,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "chargeable" BOOLEAN NOT NULL,
    "processorReference" TEXT,
    "source" TEXT NOT NULL,
    "deletedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SavedCard_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PmToken" (
    "id" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "customerId" UUID NOT NULL,
    "subscriptionId" UUID,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PmToken_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Subscription_checkoutSessionId_key" ON "Subscription"("checkoutSessionId");

-- CreateIndex
CREATE INDEX "Subscription_applicationId_environmentId_createdAt_idx" ON "Subscription"("applicationId", "environmentId", "createdAt");

-- CreateIndex
CREATE INDEX "Subscription_status_currentPeriodEnd_idx" ON "Subscription"("status", "currentPeriodEnd");

-- CreateIndex
CREATE INDEX "Subscription_customerId_idx" ON "Subscription"("customerId");

-- CreateIndex
CREATE INDEX "SubscriptionStatusHistory_subscriptionId_createdAt_idx" ON "SubscriptionStatusHistory"("subscriptionId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "TrialRedemption_applicationId_environmentId_customerId_plan_key" ON "TrialRedemption"("applicationId", "environmentId", "customerId", "planReference");

-- CreateIndex
CREATE INDEX "SavedCard_customerId_createdAt_idx" ON "SavedCard"("customerId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PmToken_tokenHash_key" ON "PmToken"("tokenHash");

-- CreateIndex
CREATE INDEX "PmToken_expiresAt_idx" ON "PmToken"("expiresAt");
