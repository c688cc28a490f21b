-- CreateTable: rate-limit counters. UNLOGGED (hand edit; Prisma does not model it): counters need no crash
-- safety, and a limited request then writes no WAL.
CREATE UNLOGGED TABLE "RateLimit" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "RateLimit_pkey" PRIMARY KEY ("key")
);
CREATE INDEX "RateLimit_expire_idx" ON "RateLimit" ("expire");
