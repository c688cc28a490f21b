-- CreateTable
CREATE TABLE "QuoteCounter" (
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "lastSeq" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "QuoteCounter_pkey" PRIMARY KEY ("applicationId","environmentId")
);

-- CreateTable
CREATE TABLE "Quote" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "customerId" UUID,
    "customerEmail" TEXT NOT NULL,
    "companyName" TEXT,
    "buyerReference" TEXT,
    "source" TEXT NOT NULL,
    "shareTokenHash" TEXT NOT NULL,
    "shareTokenSealed" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3),
    "declinedReason" TEXT,
    "declinedBy" TEXT,
    "internalNote" TEXT,
    "currentRevisionId" UUID,
    "requestFormId" UUID,
    "cartId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Quote_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuoteRevision" (
    "id" UUID NOT NULL,
    "quoteId" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'working',
    "termsMode" TEXT NOT NULL DEFAULT 'pay_in_full',
    "netN" INTEGER,
    "balanceNetN" INTEGER,
    "depositType" TEXT,
    "depositValue" INTEGER,
    "depositAmount" INTEGER,
    "collectShipping" BOOLEAN,
    "collectBilling" BOOLEAN,
    "shippingMode" TEXT NOT NULL DEFAULT 'none',
    "shippingAmount" INTEGER,
    "issuedAt" TIMESTAMPTZ(3),
    "supersededAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuoteRevision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuoteLineItem" (
    "id" UUID NOT NULL,
    "revisionId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "unitPrice" INTEGER,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "type" TEXT NOT NULL DEFAULT 'product',
    "optional" BOOLEAN NOT NULL DEFAULT false,
    "selected" BOOLEAN NOT NULL DEFAULT true,
    "qtyEditable" BOOLEAN NOT NULL DEFAULT false,
    "sku" TEXT,
    "referenceId" TEXT,
    "note" TEXT,
    "targetUnitPrice" INTEGER,
    "deliveryMethod" TEXT NOT NULL,

    CONSTRAINT "QuoteLineItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuoteComment" (
    "id" UUID NOT NULL,
    "quoteId" UUID NOT NULL,
    "visibility" TEXT NOT NULL,
    "authorType" TEXT NOT NULL,
    "authorId" TEXT,
    "authorName" TEXT,
    "body" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuoteComment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuoteStatusHistory" (
    "id" UUID NOT NULL,
    "quoteId" UUID NOT NULL,
    "fromStatus" TEXT,
    "toStatus" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "reason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuoteStatusHistory_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuoteRequestForm" (
    "id" UUID NOT NULL,
    "applicationId" UUID NOT NULL,
    "environmentId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "fields" JSONB NOT NULL,
    "successMessage" TEXT,
    "tokenHash" TEXT NOT NULL,
    "tokenPrefix" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuoteRequestForm_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Quote_shareTokenHash_key" ON "Quote"("shareTokenHash");

-- CreateIndex
CREATE INDEX "Quote_applicationId_environmentId_createdAt_id_idx" ON "Quote"("applicationId", "environmentId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Quote_applicationId_environmentId_status_createdAt_idx" ON "Quote"("applicationId", "environmentId", "status", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Quote_customerId_idx" ON "Quote"("customerId");

-- CreateIndex
CREATE UNIQUE INDEX "Quote_applicationId_environmentId_seq_key" ON "Quote"("applicationId", "environmentId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "QuoteRevision_quoteId_number_key" ON "QuoteRevision"("quoteId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "QuoteLineItem_revisionId_position_key" ON "QuoteLineItem"("revisionId", "position");

-- CreateIndex
CREATE INDEX "QuoteComment_quoteId_createdAt_idx" ON "QuoteComment"("quoteId", "createdAt");

-- CreateIndex
CREATE INDEX "QuoteStatusHistory_quoteId_createdAt_idx" ON "QuoteStatusHistory"("quoteId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "QuoteRequestForm_tokenHash_key" ON "QuoteRequestForm"("tokenHash");

-- CreateIndex
CREATE INDEX "QuoteRequestForm_applicationId_environmentId_createdAt_id_idx" ON "QuoteRequestForm"("applicationId", "environmentId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "Quote" ADD CONSTRAINT "Quote_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Quote" ADD CONSTRAINT "Quote_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuoteRevision" ADD CONSTRAINT "QuoteRevision_quoteId_fkey" FOREIGN KEY ("quoteId") REFERENCES "Quote"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuoteLineItem" ADD CONSTRAINT "QuoteLineItem_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "QuoteRevision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuoteComment" ADD CONSTRAINT "QuoteComment_quoteId_fkey" FOREIGN KEY ("quoteId") REFERENCES "Quote"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuoteStatusHistory" ADD CONSTRAINT "QuoteStatusHistory_quoteId_fkey" FOREIGN KEY ("quoteId") REFERENCES "Quote"("id") ON DELETE CASCADE ON UPDATE CASCADE;
