-- CreateTable
CREATE TABLE "SigningKey" (
    "kid" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "alg" TEXT NOT NULL DEFAULT 'RS256',
    "publicJwk" JSONB NOT NULL,
    "privateSealed" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retiredAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),

    CONSTRAINT "SigningKey_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "SigningKey_purpose_retiredAt_idx" ON "SigningKey"("purpose", "retiredAt");
