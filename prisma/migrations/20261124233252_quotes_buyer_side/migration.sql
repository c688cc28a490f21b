-- AlterTable
ALTER TABLE "CheckoutSession" ADD COLUMN     "balanceNetN" INTEGER,
ADD COLUMN     "depositAmount" INTEGER,
ADD COLUMN     "quoteId" UUID;

-- AlterTable
ALTER TABLE "Quote" ADD COLUMN     "acceptance" JSONB,
ADD COLUMN     "acceptedAt" TIMESTAMPTZ(3),
ADD COLUMN     "acceptedRevisionId" UUID,
ADD COLUMN     "checkoutSessionId" UUID,
ADD COLUMN     "convertedAt" TIMESTAMPTZ(3),
ADD COLUMN     "orderId" UUID;

-- AlterTable
ALTER TABLE "QuoteRevision" ADD COLUMN     "buyerReminderAt" TIMESTAMPTZ(3),
ADD COLUMN     "repReminderAt" TIMESTAMPTZ(3),
ADD COLUMN     "viewedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "Notification" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "quoteId" UUID,
    "title" TEXT NOT NULL,
    "body" TEXT,
    "data" JSONB NOT NULL DEFAULT '{}',
    "readAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Notification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Email" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "template" TEXT NOT NULL,
    "audience" TEXT NOT NULL,
    "toAddresses" TEXT[],
    "vars" JSONB NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "quoteId" UUID,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL,
    "claimedAt" TIMESTAMPTZ(3),
    "subject" TEXT,
    "html" TEXT,
    "text" TEXT,
    "sentAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Email_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EmailTemplateOverride" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "subject" TEXT,
    "heading" TEXT,
    "body" TEXT,
    "ctaLabel" TEXT,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EmailTemplateOverride_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Notification_applicationId_environmentId_createdAt_id_idx" ON "Notification"("applicationId", "environmentId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Email_dedupeKey_key" ON "Email"("dedupeKey");

-- CreateIndex
CREATE INDEX "Email_status_nextAttemptAt_idx" ON "Email"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Email_applicationId_environmentId_createdAt_id_idx" ON "Email"("applicationId", "environmentId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "EmailTemplateOverride_applicationId_environmentId_name_key" ON "EmailTemplateOverride"("applicationId", "environmentId", "name");

-- CreateIndex
CREATE INDEX "CheckoutSession_quoteId_idx" ON "CheckoutSession"("quoteId");

-- CreateIndex
CREATE UNIQUE INDEX "Quote_orderId_key" ON "Quote"("orderId");
