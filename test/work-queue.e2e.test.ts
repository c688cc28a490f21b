// The work-queue helper (src/shared/work-queue.ts) on the database of this pass: claims are single-flight across
// concurrent claimers, a lapsed lease is claimed again, a lease owner renews and releases, and the retry schedule
// walks to give-up. Rows live in the Email and Import tables (no foreign keys), scoped to one random application.
import { randomUUID } from "node:crypto";
import { type Claimed, nextAttempt, retryDelay, WorkQueue } from "../src/shared/work-queue";
import { loadConfig } from "../src/config";
import { notStarted, startTestApp, type TestApp } from "./helpers/app";

let t: TestApp | null;
beforeAll(async () => {
  t = await startTestApp({ worker: false });
});
afterAll(() => t?.close());

const app = () => {
  if (!t) throw notStarted();
  return t;
};

const EMAILS = new WorkQueue({ table: "Email", lease: { since: "claimedAt" }, attempts: "attempts" });
const IMPORTS = new WorkQueue({ table: "Import", lease: { until: "leaseUntil", owner: "leaseOwner" } });

async function queueEmails(n: number, at: Date) {
  const applicationId = randomUUID();
  await app().db.prisma.email.createMany({
    data: Array.from({ length: n }, (_, i) => ({
      applicationId,
      environmentId: applicationId,
      template: "test",
      audience: "buyer",
      toAddresses: [],
      vars: {},
      dedupeKey: `${applicationId}:${i}`,
      nextAttemptAt: at,
    })),
  });
  return applicationId;
}

const dueEmails = (applicationId: string, now: Date) => (eb: (typeof EMAILS)["eb"]) =>
  eb.and([eb("applicationId", "=", applicationId), eb("status", "in", ["queued", "sending"]), eb("nextAttemptAt", "<=", now)]);

function claimEmails(applicationId: string, now: Date, limit: number, leaseMs = 60_000): Promise<Claimed<"Email", "id" | "attempts">[]> {
  return EMAILS.claim(app().deps.sql, { due: dueEmails(applicationId, now), order: "nextAttemptAt", limit, leaseMs, now, set: { status: "sending" }, returning: ["id", "attempts"] });
}

test("two concurrent claimers take disjoint rows, and together every due row once", async () => {
  const now = new Date("2030-01-01T00:00:00Z");
  const applicationId = await queueEmails(60, now);
  const [a, b] = await Promise.all([claimEmails(applicationId, now, 40), claimEmails(applicationId, now, 40)]);
  const ids = [...a, ...b].map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBe(60);
  expect([...a, ...b].every((r) => r.attempts === 1)).toBe(true);
  // nothing is left to claim while the leases hold
  expect(await claimEmails(applicationId, now, 100)).toEqual([]);
});

test("a lease that lapsed is claimed again, one that holds is not; finish frees it", async () => {
  const t0 = new Date("2030-01-02T00:00:00Z");
  const applicationId = await queueEmails(1, t0);
  const [first] = await claimEmails(applicationId, t0, 10, 1_000);
  expect(first.attempts).toBe(1);
  expect(await claimEmails(applicationId, new Date(t0.getTime() + 500), 10, 1_000)).toEqual([]);
  const again = await claimEmails(applicationId, new Date(t0.getTime() + 1_001), 10, 1_000);
  expect(again).toEqual([{ id: first.id, attempts: 2 }]);
  expect(await EMAILS.finish(app().deps.sql, [first.id], { status: "queued", nextAttemptAt: new Date(t0.getTime() + 5_000) })).toBe(1);
  const row = await app().db.prisma.email.findUniqueOrThrow({ where: { id: first.id } });
  expect(row).toMatchObject({ status: "queued", claimedAt: null, attempts: 2 });
  expect(await claimEmails(applicationId, new Date(t0.getTime() + 4_999), 10, 1_000)).toEqual([]);
  expect(await claimEmails(applicationId, new Date(t0.getTime() + 5_000), 10, 1_000)).toHaveLength(1);
});

test("retries follow the schedule, then give up after the last attempt", async () => {
  const policy = { schedule: [1_000, 5_000], maxAttempts: 4 };
  const t0 = new Date("2030-01-03T00:00:00Z");
  const applicationId = await queueEmails(1, t0);
  let now = t0;
  const waits: number[] = [];
  for (;;) {
    const [e] = await claimEmails(applicationId, now, 1);
    expect(e).toBeDefined();
    const next = nextAttempt(policy, e.attempts, now);
    if (next.giveUp) {
      await EMAILS.finish(app().deps.sql, [e.id], { status: "failed" });
      break;
    }
    waits.push(next.at.getTime() - now.getTime());
    await EMAILS.finish(app().deps.sql, [e.id], { status: "queued", nextAttemptAt: next.at });
    expect(await claimEmails(applicationId, new Date(next.at.getTime() - 1), 1)).toEqual([]);
    now = next.at;
  }
  expect(waits).toEqual([1_000, 5_000, 5_000]);
  const row = await app().db.prisma.email.findFirstOrThrow({ where: { applicationId } });
  expect(row).toMatchObject({ status: "failed", attempts: 4, claimedAt: null });
  expect(await claimEmails(applicationId, new Date(now.getTime() + 86_400_000), 1)).toEqual([]);
});

test("exponential schedules double up to the cap, and jitter only shortens a wait", () => {
  const exp = { baseMs: 1_000, capMs: 10_000 };
  expect([1, 2, 3, 4, 5, 60].map((n) => retryDelay(exp, n))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  const jittered = { ...exp, jitter: 0.5 };
  expect(retryDelay(jittered, 3, () => 0)).toBe(4_000);
  expect(retryDelay(jittered, 3, () => 1)).toBe(2_000);
  expect(retryDelay([5, 7], 9)).toBe(7);
  expect(nextAttempt({ schedule: exp, maxAttempts: 2 }, 2, new Date())).toEqual({ giveUp: true });
  // the same forms from configuration
  const c = loadConfig({ MAIL_RETRY_SCHEDULE: "exp(30s,1h,20%)", EXTENSION_CALLBACK_RETRY_SCHEDULE: "exp(1s, 1m)" });
  expect(c.MAIL_RETRY_SCHEDULE).toEqual({ baseMs: 30_000, capMs: 3_600_000, jitter: 0.2 });
  expect(c.EXTENSION_CALLBACK_RETRY_SCHEDULE).toEqual({ baseMs: 1_000, capMs: 60_000, jitter: 0 });
  expect(() => loadConfig({ MAIL_RETRY_SCHEDULE: "exp(1h,1m)" })).toThrow(/MAIL_RETRY_SCHEDULE/);
  expect(() => loadConfig({ MAIL_RETRY_SCHEDULE: "soon" })).toThrow(/MAIL_RETRY_SCHEDULE/);
});

test("an owned lease on the database's clock: one owner at a time, renewed only by its owner, released on shutdown", async () => {
  const applicationId = randomUUID();
  const imp = await app().db.prisma.import.create({
    data: { applicationId, environmentId: applicationId, entityType: "customer", status: "committing", fileName: "x.csv", fileFormat: "csv", fileBytes: 1, fileKey: randomUUID(), contentType: "text/csv" },
  });
  const sql = app().deps.sql;
  const claim = (owner: string) =>
    IMPORTS.claim(sql, { due: (eb) => eb.and([eb("id", "=", imp.id), eb("status", "=", "committing")]), limit: 1, leaseMs: 60_000, now: "database", owner, returning: ["id", "leaseOwner"] });
  const [a, b] = await Promise.all([claim("worker-a"), claim("worker-b")]);
  const won = [...a, ...b];
  expect(won).toHaveLength(1);
  const owner = won[0].leaseOwner!;
  const other = owner === "worker-a" ? "worker-b" : "worker-a";
  expect(await IMPORTS.renew(sql, imp.id, { owner: other, leaseMs: 60_000, now: "database" })).toBe(false);
  expect(await IMPORTS.renew(sql, imp.id, { owner, leaseMs: 60_000, now: "database", still: (eb) => eb("status", "=", "validating") })).toBe(false);
  expect(await IMPORTS.renew(sql, imp.id, { owner, leaseMs: 60_000, now: "database", still: (eb) => eb("status", "=", "committing") })).toBe(true);
  expect(await claim(other)).toEqual([]);
  expect(await IMPORTS.release(sql, { owner: other })).toBe(0);
  expect(await IMPORTS.release(sql, { owner })).toBe(1);
  expect(await claim(other)).toEqual([{ id: imp.id, leaseOwner: other }]);
  // a lease that lapsed on the database's clock is taken over
  expect(await IMPORTS.renew(sql, imp.id, { owner: other, leaseMs: -1_000, now: "database" })).toBe(true);
  expect(await claim(owner)).toEqual([{ id: imp.id, leaseOwner: owner }]);
});
