// Set-based seeding of due subscriptions for the renewal concurrency test and bench/renewals.ts: n customers, each with
// a chargeable default card (test token tok_visa) and an auto-mode monthly subscription whose period ended at `dueAt`.
import type { PrismaClient } from "../../src/generated/prisma/client";

export async function seedDueSubscriptions(prisma: PrismaClient, t: { applicationId: string; environmentId: string }, n: number, dueAt: Date, tag: string) {
  const start = new Date(dueAt.getTime() - 31 * 86_400_000);
  await prisma.$executeRaw`
    WITH c AS (
      INSERT INTO "Customer" (id, "applicationId", "environmentId", email, "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${t.applicationId}::uuid, ${t.environmentId}::uuid, 'seed-' || ${tag} || '-' || g || '@example.com', ${start}, ${start}
      FROM generate_series(1, ${n}::int) g
      RETURNING id
    ), k AS (
      INSERT INTO "SavedCard" (id, "applicationId", "environmentId", "customerId", "cardBrand", "cardLastFour", "cardExpMonth", "cardExpYear", "isDefault", chargeable, "processorReference", source, "createdAt", "updatedAt")
      SELECT 'cpm_' || replace(gen_random_uuid()::text, '-', ''), ${t.applicationId}::uuid, ${t.environmentId}::uuid, c.id, 'visa', '4242', 12, 2030, true, true, 'tok_visa', 'checkout', ${start}, ${start}
      FROM c
    )
    INSERT INTO "Subscription" (id, "applicationId", "environmentId", "customerId", status, mode, "planReference", interval, amount, quantity, currency, "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
    SELECT gen_random_uuid(), ${t.applicationId}::uuid, ${t.environmentId}::uuid, c.id, 'active', 'auto', ${tag}, 'monthly', 1000, 1, 'USD', ${start}, ${dueAt}, ${start}, ${start}
    FROM c`;
}
