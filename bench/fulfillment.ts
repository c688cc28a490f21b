// Fulfillment benchmark (issue 13): per order, POST /orders/{id}/fulfillments with a shipment and a tracking number
// for every unit (completed, shipped; the order moves to fulfilled) then POST /fulfillments/{id}/delivered (the order
// reads "Fulfilled · Delivered"). Orders are seeded with set-based SQL before each phase (not timed). A driver, not a
// test: it prints figures.
//   npx tsx bench/fulfillment.ts                   (PostgreSQL: a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
//   BENCH_EMBEDDED=1 npx tsx bench/fulfillment.ts  (embedded PGlite, in memory; no statement counts)
// Knobs: BENCH_ITERATIONS (default 300 orders per timed phase), BENCH_WARMUP (30).
import os from "node:os";
import { codeVersion, fmt, median, openBenchDb, pct, runPhase, startBenchApp } from "./harness";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 30);
const WORKERS = 20;
const COUNT_SAMPLES = 20;

let statements = 0;

async function main() {
  const bench = await openBenchDb({ onStatement: () => statements++ });
  const { db } = bench;
  const ours = await startBenchApp(bench, { RATE_LIMIT_PER_CREDENTIAL: "1000000000/1m" });
  const { base, demo } = ours;
  const env = demo.environments.sandbox;

  const problems: string[] = [];
  async function call(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${base}/api/v1/${path}`, { method, headers: { "content-type": "application/json", "x-api-key": demo.apiKey }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : null;
  }

  /** n processing orders of 2 lines (3 + 1 units), inserted set-based; returns [{ orderId, lines }]. */
  async function prepare(n: number) {
    const rows = await db.prisma.$queryRaw<{ id: string; a: string; b: string }[]>`
      WITH o AS (
        INSERT INTO "Order" (id, "applicationId", "environmentId", status, "paymentStatus", currency, subtotal, total, email, "createdAt", "updatedAt")
        SELECT gen_random_uuid(), ${demo.applicationId}::uuid, ${env.id}::uuid, 'processing', 'captured', 'USD', 5500, 5500, 'bench' || i || '@example.com', now(), now()
        FROM generate_series(1, ${n}) AS i RETURNING id
      ), a AS (
        INSERT INTO "OrderLineItem" (id, "orderId", name, "unitPrice", quantity, "requiresShipping", position)
        SELECT gen_random_uuid(), o.id, 'Widget', 1500, 3, true, 0 FROM o RETURNING id, "orderId"
      ), b AS (
        INSERT INTO "OrderLineItem" (id, "orderId", name, "unitPrice", quantity, "requiresShipping", position)
        SELECT gen_random_uuid(), o.id, 'Gadget', 1000, 1, true, 1 FROM o RETURNING id, "orderId"
      )
      SELECT a."orderId"::text AS id, a.id::text AS a, b.id::text AS b FROM a JOIN b ON b."orderId" = a."orderId"`;
    return rows;
  }

  async function scenario(o: { id: string; a: string; b: string }, counts?: { create: number; delivered: number }) {
    const t0 = performance.now();
    let mark = statements;
    const f = await call("POST", `orders/${o.id}/fulfillments`, { lineItems: [{ lineItemId: o.a, quantity: 3 }, { lineItemId: o.b, quantity: 1 }], shipment: { carrier: "UPS", trackingNumber: `1Z${o.id.slice(0, 8)}` } });
    const t1 = performance.now();
    if (counts) counts.create = statements - mark;
    mark = statements;
    const d = await call("POST", `fulfillments/${f.data.id}/delivered`);
    const t2 = performance.now();
    if (counts) counts.delivered = statements - mark;
    if (f.data.status !== "completed" || !d.data.shipment.deliveredAt) problems.push(`fulfillment ${f.data.id}: ${f.data.status}`);
    return { ms: t2 - t0, createMs: t1 - t0, deliveredMs: t2 - t1 };
  }

  async function phase(name: string, workers: number, n: number) {
    const { results: all, wallMs } = await runPhase(await prepare(n), workers, (o) => scenario(o), problems);
    const sorted = (f: (x: (typeof all)[number]) => number) => all.map(f).sort((a, b) => a - b);
    return { name, planned: n, completed: all.length, wallMs, scenario: sorted((x) => x.ms), create: sorted((x) => x.createMs), delivered: sorted((x) => x.deliveredMs) };
  }

  const load0 = os.loadavg();
  await phase("warm-up", 1, WARMUP);
  const seq = await phase("sequential", 1, ITERATIONS);
  const conc = await phase(`${WORKERS}-way concurrent`, WORKERS, ITERATIONS);
  const load1 = os.loadavg();
  const counts: { create: number; delivered: number }[] = [];
  if (db.pool) {
    for (const o of await prepare(COUNT_SAMPLES)) {
      const c = { create: 0, delivered: 0 };
      await scenario(o, c);
      counts.push(c);
    }
  }
  const expected = WARMUP + 2 * ITERATIONS + counts.length;
  const done = await db.prisma.order.count({ where: { status: "fulfilled", deliveryState: "delivered" } });
  if (done !== expected) problems.push(`orders fulfilled and delivered: ${done}, scenarios ${expected}`);

  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} cores (${cpus[0]?.model}), node ${process.version}; load average 1 min ${fmt(load0[0], 2)} at start, ${fmt(load1[0], 2)} after the timed phases`);
  console.log(`database: ${db.kind === "pg" ? `PostgreSQL ${(await db.pool!.query("SHOW server_version")).rows[0].server_version} (pool max 20)` : "PGlite (in process)"}`);
  console.log(`code: ${codeVersion()}`);
  console.log(`scenario: POST /orders/{id}/fulfillments (2 lines, shipment with tracking: completed, shipped, order fulfilled), POST /fulfillments/{id}/delivered; warm-up ${WARMUP}, ${ITERATIONS} orders per phase`);
  console.log("");
  console.log("| phase | orders | wall s | orders/s | scenario p50 / p99 ms | create p50 / p99 ms | delivered p50 / p99 ms |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const p of [seq, conc]) {
    console.log(
      `| ${p.name} | ${p.completed}/${p.planned} | ${fmt(p.wallMs / 1000, 2)} | ${fmt((p.completed / p.wallMs) * 1000)} | ${fmt(pct(p.scenario, 50))} / ${fmt(pct(p.scenario, 99))} | ${fmt(pct(p.create, 50))} / ${fmt(pct(p.create, 99))} | ${fmt(pct(p.delivered, 50))} / ${fmt(pct(p.delivered, 99))} |`,
    );
  }
  if (counts.length) {
    const c = counts.map((x) => x.create);
    const d = counts.map((x) => x.delivered);
    console.log("");
    console.log(`SQL statements (median over ${counts.length}; min-max): create ${median(c)} (${Math.min(...c)}-${Math.max(...c)}), delivered ${median(d)} (${Math.min(...d)}-${Math.max(...d)})`);
  }
  console.log("");
  if (problems.length) {
    for (const p of problems.slice(0, 10)) console.warn(`!!! WARNING: ${p}`);
    process.exitCode = 1;
  } else {
    console.log(`checks: every call 2xx; ${done} orders fulfilled with their shipment delivered`);
  }
  await ours.close();
  process.exit(process.exitCode ?? 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
