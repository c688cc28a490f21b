// Quote acceptance benchmark (issue 12): per iteration a buyer accepts an issued quote at its link (deselecting an
// optional line, resizing an editable one) and pays on the checkout it opens (card, tok_visa), which converts the
// quote. Quotes are created and issued before each phase (not timed). A driver, not a test: it prints figures.
//   npx tsx bench/quote-accept.ts                    (PostgreSQL: a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
//   BENCH_EMBEDDED=1 npx tsx bench/quote-accept.ts   (embedded PGlite, in memory; no statement counts)
// Knobs: BENCH_ITERATIONS (default 200, per timed phase), BENCH_WARMUP (20).
// Phases: warm-up; sequential; 20 workers; then (PostgreSQL) 20 sequential scenarios with the statement counter read
// around the accept and the complete (BEGIN/COMMIT and the limiter's statements included).
import os from "node:os";
import { codeVersion, fmt, median, openBenchDb, pct, runPhase, startBenchApp } from "./harness";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const WORKERS = 20;
const COUNT_SAMPLES = 20;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const LINES = [
  { name: "Widget", unitPrice: 1500, quantity: 2, qtyEditable: true },
  { name: "Gadget", unitPrice: 2500, quantity: 1, optional: true },
  { name: "Setup", unitPrice: 10000, quantity: 1, type: "service" },
];
const EXPECTED_TOTAL = 1500 * 3 + 10000; // Gadget deselected, 3 widgets

let statements = 0;

async function main() {
  const bench = await openBenchDb({ onStatement: () => statements++ });
  const { db } = bench;
  const generous = "1000000000/1m";
  const ours = await startBenchApp(
    bench,
    {
      RATE_LIMIT_PER_CREDENTIAL: generous,
      RATE_LIMIT_CHECKOUT_PER_IP: generous,
      RATE_LIMIT_CHECKOUT_PER_SESSION: generous,
      RATE_LIMIT_QUOTE_LINKS_PER_IP: generous,
      RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: generous,
    },
    { checkoutUrl: true },
  );
  const { base, demo } = ours;

  const problems: string[] = [];
  async function call(method: string, path: string, body?: unknown, key?: string): Promise<any> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (key) headers["x-api-key"] = key;
    const res = await fetch(`${base}/api/v1/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : null;
  }

  /** Issued quotes ready to accept: { token, revisionId, widgetId, gadgetId }. */
  async function prepare(n: number) {
    const out: { token: string; revisionId: string; widgetId: string; gadgetId: string }[] = [];
    for (let i = 0; i < n; i++) {
      const c = await call("POST", "quotes", { customerEmail: `buyer${i % 50}@example.com`, items: LINES }, demo.apiKey);
      const q = (await call("POST", `quotes/${c.data.id}/issue`, {}, demo.apiKey)).data.quote;
      const rev = q.revisions.find((r: any) => r.id === q.currentRevisionId);
      out.push({ token: q.shareToken, revisionId: rev.id, widgetId: rev.items[0].id, gadgetId: rev.items[1].id });
    }
    return out;
  }

  async function scenario(q: Awaited<ReturnType<typeof prepare>>[number], counts?: { accept: number; complete: number }) {
    const t0 = performance.now();
    let mark = statements;
    const a = await call("POST", `quote-links/${q.token}/accept`, {
      revisionId: q.revisionId,
      acceptedByName: "Bench Buyer",
      itemSelections: [
        { itemId: q.gadgetId, selected: false },
        { itemId: q.widgetId, quantity: 3 },
      ],
    });
    const t1 = performance.now();
    if (counts) counts.accept = statements - mark;
    mark = statements;
    const sessionId = a.data.checkoutUrl.split("/").pop();
    const done = await call("POST", `checkout-sessions/${sessionId}/complete`, { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS });
    const t2 = performance.now();
    if (counts) counts.complete = statements - mark;
    if (done.data.paymentStatus !== "captured") problems.push(`complete answered ${done.data.paymentStatus}`);
    return { ms: t2 - t0, acceptMs: t1 - t0, completeMs: t2 - t1 };
  }

  async function phase(name: string, workers: number, n: number) {
    const { results: all, wallMs } = await runPhase(await prepare(n), workers, (q) => scenario(q), problems);
    const sorted = (f: (x: (typeof all)[number]) => number) => all.map(f).sort((a, b) => a - b);
    return { name, planned: n, completed: all.length, wallMs, scenario: sorted((x) => x.ms), accept: sorted((x) => x.acceptMs), complete: sorted((x) => x.completeMs) };
  }

  const load0 = os.loadavg();
  await phase("warm-up", 1, WARMUP);
  const seq = await phase("sequential", 1, ITERATIONS);
  const conc = await phase(`${WORKERS}-way concurrent`, WORKERS, ITERATIONS);
  const load1 = os.loadavg();

  const counts: { accept: number; complete: number }[] = [];
  if (db.pool) {
    for (const q of await prepare(COUNT_SAMPLES)) {
      const c = { accept: 0, complete: 0 };
      await scenario(q, c);
      counts.push(c);
    }
  }
  const converted = await db.prisma.quote.count({ where: { status: "converted" } });
  const expected = WARMUP + 2 * ITERATIONS + counts.length;
  const right = await db.prisma.order.count({ where: { total: EXPECTED_TOTAL, paymentStatus: "captured" } });
  if (converted !== expected) problems.push(`converted quotes ${converted}, scenarios ${expected}`);
  if (right !== expected) problems.push(`orders of ${EXPECTED_TOTAL} captured: ${right}, scenarios ${expected}`);

  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} cores (${cpus[0]?.model}), node ${process.version}; load average 1 min ${fmt(load0[0], 2)} at start, ${fmt(load1[0], 2)} after the timed phases`);
  console.log(`database: ${db.kind === "pg" ? `PostgreSQL ${(await db.pool!.query("SHOW server_version")).rows[0].server_version} (pool max 20)` : "PGlite (in process)"}`);
  console.log(`code: ${codeVersion()}`);
  console.log(`scenario: POST /quote-links/{token}/accept (1 optional line deselected, 1 quantity changed), POST /checkout-sessions/{id}/complete (card); warm-up ${WARMUP}, ${ITERATIONS} per phase`);
  console.log("");
  console.log("| phase | converted | wall s | quotes converted/s | scenario p50 / p99 ms | accept p50 / p99 ms | complete p50 / p99 ms |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const p of [seq, conc]) {
    console.log(
      `| ${p.name} | ${p.completed}/${p.planned} | ${fmt(p.wallMs / 1000, 2)} | ${fmt((p.completed / p.wallMs) * 1000)} | ${fmt(pct(p.scenario, 50))} / ${fmt(pct(p.scenario, 99))} | ${fmt(pct(p.accept, 50))} / ${fmt(pct(p.accept, 99))} | ${fmt(pct(p.complete, 50))} / ${fmt(pct(p.complete, 99))} |`,
    );
  }
  if (counts.length) {
    const acc = counts.map((c) => c.accept);
    const comp = counts.map((c) => c.complete);
    console.log("");
    console.log(`SQL statements (median over ${counts.length}; min-max): accept ${median(acc)} (${Math.min(...acc)}-${Math.max(...acc)}), complete ${median(comp)} (${Math.min(...comp)}-${Math.max(...comp)})`);
  }
  console.log("");
  if (problems.length) {
    for (const p of problems.slice(0, 10)) console.warn(`!!! WARNING: ${p}`);
    process.exitCode = 1;
  } else {
    console.log(`checks: every call 2xx; ${converted} quotes converted, each with a captured order of ${EXPECTED_TOTAL}`);
  }
  await ours.close();
  process.exit(process.exitCode ?? 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
