// Email dispatch benchmark (issue 35 item 9): 1,000 emails queued at once through the mail service (queueEmail in one
// transaction, customer.quote_proposed with its full facts block), and the time until the process's MailDispatcher,
// woken by that commit, has rendered them all into the outbox (no SMTP_URL: kept, rendered). A driver, not a test:
// it prints figures.
//   npx tsx bench/emails.ts                                          (embedded PGlite in memory)
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/emails.ts   (a fresh database on that server)
// Knobs: BENCH_EMAILS (default 1000).
import os from "node:os";
import { loadConfig } from "../src/config";
import { EventHub } from "../src/shared/hub";
import { MailDispatcher } from "../src/mail/mail-sender";
import { queueEmail } from "../src/mail/mail.service";
import { SAMPLE_VARS } from "../src/mail/templates";
import { ensureWorkspace } from "../src/platform/bootstrap.service";
import { systemClock } from "../src/shared/clock";
import { type Deps, makeCtx, withTx } from "../src/shared/context";
import { limitSpecs, RateLimits, storeFor } from "../src/shared/rate-limit";
import { closeBenchDb, codeVersion, fmt, intEnv, openBenchDb, sleep } from "./harness";

const EMAILS = intEnv("BENCH_EMAILS", 1000);

async function main() {
  if (process.env.DATABASE_URL) process.env.BENCH_DATABASE_URL ??= process.env.DATABASE_URL;
  const bench = await openBenchDb({ embedded: !process.env.DATABASE_URL });
  const { db } = bench;
  const config = loadConfig({ LOG_LEVEL: "error", DATABASE_URL: bench.created?.url ?? "", SMTP_URL: "" });
  const hub = new EventHub();
  const limits = new RateLimits(limitSpecs(config), storeFor(config, db));
  const deps: Deps = { prisma: db.prisma, sql: db.sql, dbKind: db.kind, clock: systemClock, config, hub, limits };
  const w = await ensureWorkspace(makeCtx(deps), { slug: "bench-mail", name: "Bench mail", ownerEmail: "owner@bench-mail.test", appSlug: "store", appName: "Bench Store", live: true });
  const tenant = { applicationId: w.app.id, environmentId: w.sandbox.id };
  const mail = new MailDispatcher(deps).start();
  await mail.idle();
  // warm-up: MJML and its tool chain load on the first render
  await withTx(makeCtx(deps), async (tx) => void queueEmail(tx, tenant, { template: "customer.quote_proposed", to: ["warm@bench.test"], vars: SAMPLE_VARS, cause: "warm" }));
  await mail.idle();

  console.log(`emails bench: ${EMAILS} emails on ${db.kind === "pg" ? "PostgreSQL" : "embedded PGlite"}, ${os.cpus().length} cores, code ${codeVersion(["src", "prisma", "bench"])}`);
  const t0 = performance.now();
  await withTx(makeCtx(deps), async (tx) => {
    for (let i = 0; i < EMAILS; i++) queueEmail(tx, tenant, { template: "customer.quote_proposed", to: [`buyer${i}@bench.test`], vars: { ...SAMPLE_VARS, quoteNumber: `Q-${i}` }, cause: `bench:${i}` });
  });
  const committed = performance.now();
  // the dispatcher was woken by that commit; poll the outbox until every email is rendered
  let firstRenderedMs: number | null = null;
  for (;;) {
    const done = await db.prisma.email.count({ where: { dedupeKey: { startsWith: "bench:" }, status: { in: ["kept", "sent"] } } });
    if (done > 0 && firstRenderedMs === null) firstRenderedMs = performance.now() - committed;
    if (done >= EMAILS) break;
    await sleep(25);
  }
  const allMs = performance.now() - committed;
  const failed = await db.prisma.email.count({ where: { dedupeKey: { startsWith: "bench:" }, status: { notIn: ["kept", "sent"] } } });
  console.log(`queue (one transaction of ${EMAILS}): ${fmt(committed - t0, 0)} ms`);
  console.log(`commit -> first rendered: ${fmt(firstRenderedMs ?? NaN, 0)} ms; commit -> all ${EMAILS} rendered: ${fmt(allMs, 0)} ms`);
  console.log(`throughput: ${fmt(EMAILS / (allMs / 1000), 1)} emails/s; not rendered: ${failed}`);
  await mail.stop();
  await hub.close();
  await limits.close();
  await closeBenchDb(bench);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
