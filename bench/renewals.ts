// The subscription-renewal job on PostgreSQL: a batch of due subscriptions (seeded set-based: customers, default
// cards, subscriptions) renewed by one pass of the job; prints renewals per second and SQL statements per renewal.
//   npx tsx bench/renewals.ts          (a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
// Knobs: BENCH_RENEWALS (default 10000), BENCH_BATCH (claim size, default 100), BENCH_CONCURRENCY (renewals in flight
// per process, default 4). Statements are counted as test/helpers/statements.ts does (BEGIN and COMMIT included).
import { FixedClock } from "../src/shared/clock";
import { makeCtx } from "../src/shared/context";
import { runRenewals } from "../src/subscriptions/renewals.service";
import { startTestApp } from "../test/helpers/app";
import { kindOf, statementsOf } from "../test/helpers/statements";
import { seedDueSubscriptions } from "../test/helpers/subscriptions";

const N = Number(process.env.BENCH_RENEWALS ?? 10_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);

async function main() {
  if (process.env.BENCH_DATABASE_URL) process.env.DATABASE_URL = process.env.BENCH_DATABASE_URL;
  const due = new Date("2026-06-01T00:00:00.000Z");
  const clock = new FixedClock(new Date(due.getTime() + 60_000));
  const t = await startTestApp({ db: "pg", worker: false, clock, env: { LOG_LEVEL: "error" } });
  if (!t) throw new Error("PostgreSQL is not reachable (BENCH_DATABASE_URL or postgresql://postgres@127.0.0.1:5432/postgres)");
  try {
    const demo = await t.bootstrap();
    const tenant = { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
    const seedStart = performance.now();
    await seedDueSubscriptions(t.deps.prisma, tenant, N, due, "bench");
    const seedMs = performance.now() - seedStart;
    const ctx = makeCtx(t.deps);
    const started = performance.now();
    const { result, statements } = await statementsOf(() => runRenewals(ctx, { batch: BATCH, concurrency: CONCURRENCY }));
    const ms = performance.now() - started;
    const captured = await t.deps.prisma.payment.count({ where: { applicationId: tenant.applicationId, status: "captured", subscriptionId: { not: null } } });
    const kinds = new Map<string, number>();
    for (const s of statements) kinds.set(kindOf(s), (kinds.get(kindOf(s)) ?? 0) + 1);
    console.log(`seeded ${N} due subscriptions in ${(seedMs / 1000).toFixed(2)} s (set-based)`);
    console.log(`renewal pass: ${JSON.stringify(result)} in ${(ms / 1000).toFixed(2)} s, batch ${BATCH}, concurrency ${CONCURRENCY}`);
    console.log(`renewals per second: ${(result.renewed / (ms / 1000)).toFixed(1)}`);
    console.log(`captured renewal payments: ${captured}`);
    console.log(`statements: ${statements.length} total, ${(statements.length / Math.max(1, result.renewed)).toFixed(2)} per renewal`);
    console.log("by kind, per renewal:");
    for (const [k, c] of [...kinds.entries()].sort((x, y) => y[1] - x[1])) console.log(`  ${k.padEnd(40)} ${(c / Math.max(1, result.renewed)).toFixed(2)}`);
  } finally {
    await t.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
