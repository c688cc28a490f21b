// Two job processes (two apps on one PostgreSQL database) renewing the same 200 due subscriptions: each period is
// charged exactly once (the renewal lease), every subscription advances one period.
import { findJob } from "../jobs/registry";
import { FixedClock } from "../src/shared/clock";
import { retrySubscriptionCharge, runRenewals } from "../src/subscriptions/renewals.service";
import { makeCtx } from "../src/shared/context";
import { notStarted, pgTest, startPgApp, startTestApp, type TestApp } from "./helpers/app";
import { seedDueSubscriptions } from "./helpers/subscriptions";

let a: TestApp | null;
let b: TestApp | null;
const due = new Date("2026-06-01T00:00:00.000Z");
const clockA = new FixedClock(new Date(due.getTime() + 60_000));
const clockB = new FixedClock(new Date(due.getTime() + 60_000));

beforeAll(async () => {
  a = await startPgApp({ clock: clockA });
  if (!a) return; // no PostgreSQL: every test below is registered as skipped
  b = await startTestApp({ databaseUrl: a.databaseUrl, clock: clockB });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

pgTest("two processes renewing the same 200 due subscriptions charge each exactly once", async () => {
  if (!a || !b) throw notStarted();
  const demo = await a.bootstrap();
  const tenant = { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
  await seedDueSubscriptions(a.deps.prisma, tenant, 200, due, "race");
  // small batches and several workers per process, so the two claim side by side
  const [ra, rb] = await Promise.all([
    runRenewals(makeCtx(a.deps), { batch: 10, concurrency: 4 }),
    runRenewals(makeCtx(b.deps), { batch: 10, concurrency: 4 }),
    findJob("subscription-renewal")!.run({ deps: a.deps, deliveries: a.deliveries }),
  ]);
  expect(ra.failed + rb.failed).toBe(0);
  const payments = await a.deps.prisma.payment.groupBy({ by: ["subscriptionId"], where: { applicationId: tenant.applicationId, subscriptionId: { not: null } }, _count: { _all: true } });
  expect(payments).toHaveLength(200);
  expect(payments.every((p) => p._count._all === 1)).toBe(true);
  expect(await a.deps.prisma.order.count({ where: { applicationId: tenant.applicationId, source: "renewal" } })).toBe(200);
  expect(await a.deps.prisma.payment.count({ where: { applicationId: tenant.applicationId, status: "captured", subscriptionId: { not: null } } })).toBe(200);
  const subs = await a.deps.prisma.subscription.findMany({ where: { applicationId: tenant.applicationId } });
  expect(subs.every((s) => s.status === "active" && s.currentPeriodEnd.toISOString() === "2026-07-01T00:00:00.000Z" && s.leaseOwner === null)).toBe(true);
  expect(ra.renewed + rb.renewed).toBeLessThanOrEqual(200);
  // nothing is due any more
  expect(await runRenewals(makeCtx(b.deps))).toMatchObject({ renewed: 0, declined: 0 });
});

pgTest("wallet retries racing the job on a past_due subscription charge it once; the losers get 409 conflict or 422 invalid_state", async () => {
  if (!a || !b) throw notStarted();
  const demo = await a.bootstrap();
  const tenant = { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
  await seedDueSubscriptions(a.deps.prisma, tenant, 1, due, "retry-race");
  const sub = await a.deps.prisma.subscription.findFirstOrThrow({ where: { planReference: "retry-race" } });
  await a.deps.prisma.subscription.update({ where: { id: sub.id }, data: { status: "past_due", failureCount: 1, nextRetryAt: due } });
  const outcomes = await Promise.allSettled([
    ...Array.from({ length: 6 }, (_, i) => retrySubscriptionCharge(makeCtx((i % 2 ? b! : a!).deps), sub.id)),
    runRenewals(makeCtx(b.deps), { batch: 5 }),
  ]);
  const charges = await a.deps.prisma.payment.count({ where: { subscriptionId: sub.id } });
  expect(charges).toBe(1);
  for (const o of outcomes.slice(0, 6)) {
    if (o.status === "rejected") expect(["conflict", "invalid_state"]).toContain((o.reason as { code: string }).code);
  }
  const after = await a.deps.prisma.subscription.findUniqueOrThrow({ where: { id: sub.id } });
  expect(after).toMatchObject({ status: "active", failureCount: 0, leaseOwner: null });
  expect(after.currentPeriodEnd.toISOString()).toBe("2026-07-01T00:00:00.000Z");
});
