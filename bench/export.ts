// CSV export benchmark (issue 13): 100,000 orders (seeded with set-based SQL: one INSERT … SELECT generate_series
// for the orders, one for a payment on every other order) exported through GET /orders/export.csv, the response
// read as a stream and counted, never kept. Prints the time, the rows, the bytes and the peak RSS growth of the
// process (server and client share it) over the RSS before the export, sampled every 10 ms. A driver, not a test.
//   npx tsx bench/export.ts                   (PostgreSQL: a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
//   BENCH_EMBEDDED=1 npx tsx bench/export.ts  (embedded PGlite, in memory)
// Knobs: BENCH_ORDERS (default 100000); BENCH_GC=1 with NODE_OPTIONS=--expose-gc samples live memory (a GC before each sample).
import os from "node:os";
import { codeVersion, openBenchDb, startBenchApp } from "./harness";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

async function main() {
  const bench = await openBenchDb();
  const { db } = bench;
  const ours = await startBenchApp(bench);
  const { base, demo } = ours;
  const app0 = demo.applicationId;
  const env = demo.environments.sandbox.id;

  const s0 = performance.now();
  await db.prisma.$executeRaw`
    INSERT INTO "Order" (id, "applicationId", "environmentId", status, "paymentStatus", currency, subtotal, total, "compAmount", email, "deliveryState", "createdAt", "updatedAt")
    SELECT gen_random_uuid(), ${app0}::uuid, ${env}::uuid, (ARRAY['processing','partially_fulfilled','fulfilled','closed'])[1 + i % 4],
           (ARRAY['captured','partially_refunded','pending'])[1 + i % 3], 'USD', 1000 + i % 9000, 1200 + i % 9000, CASE WHEN i % 97 = 0 THEN 500 ELSE 0 END,
           CASE WHEN i % 10 = 0 THEN 'Buyer, "Q" ' || i || E'\n@example.com' ELSE 'buyer' || i || '@example.com' END,
           (ARRAY[NULL,'in_transit','delivered','returned','partially_returned'])[1 + i % 5],
           now() - i * interval '1 second', now()
    FROM generate_series(1, ${ORDERS}) AS i`;
  await db.prisma.$executeRaw`
    INSERT INTO "Payment" (id, "applicationId", "environmentId", "orderId", status, amount, currency, method, processor, "capturedAmount", "refundedAmount", "createdAt", "updatedAt")
    SELECT gen_random_uuid(), o."applicationId", o."environmentId", o.id, 'captured', o.total, 'USD', 'card', 'test', o.total, CASE WHEN o."paymentStatus" = 'partially_refunded' THEN 100 ELSE 0 END, now(), now()
    FROM "Order" o WHERE o."applicationId" = ${app0}::uuid AND o."paymentStatus" <> 'pending'`;
  if (db.pool) await db.pool.query('ANALYZE "Order"; ANALYZE "Payment"');
  const seedS = (performance.now() - s0) / 1000;

  if (global.gc) global.gc();
  await new Promise((r) => setTimeout(r, 200));
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  let peak = rss0;
  let heapPeak = heap0;
  // BENCH_GC=1 (with NODE_OPTIONS=--expose-gc): collect before each sample, so the peaks are live memory, not garbage
  const collect = process.env.BENCH_GC && global.gc ? global.gc : null;
  const sampler = setInterval(() => {
    collect?.();
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 10);
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/orders/export.csv`, { headers: { "x-api-key": demo.apiKey } });
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let newlines = 0;
  let firstByteMs = NaN;
  let prev = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
    bytes += value.length;
    // records end in CRLF (the CR may end the previous chunk); quoted bare LFs are not counted
    for (let i = 0; i < value.length; i++) {
      if (value[i] === 0x0a && (i ? value[i - 1] : prev) === 0x0d) newlines++;
    }
    prev = value[value.length - 1];
  }
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const rows = newlines - 1;

  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} cores (${cpus[0]?.model}), node ${process.version}; load average 1 min ${os.loadavg()[0].toFixed(2)}`);
  console.log(`database: ${db.kind === "pg" ? `PostgreSQL ${(await db.pool!.query("SHOW server_version")).rows[0].server_version}` : "PGlite (in process)"}`);
  console.log(`code: ${codeVersion()}`);
  console.log(`seeded ${ORDERS} orders and their payments in ${seedS.toFixed(1)} s (set-based SQL)`);
  console.log("");
  console.log("| rows | MB | first byte ms | total s | rows/s | RSS before MB | peak RSS growth MB | peak JS heap growth MB |");
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  console.log(`| ${rows} | ${mb(bytes)} | ${firstByteMs.toFixed(0)} | ${(ms / 1000).toFixed(2)} | ${((rows / ms) * 1000).toFixed(0)} | ${mb(rss0)} | ${mb(peak - rss0)} | ${mb(heapPeak - heap0)} |`);
  const ok = rows === Math.min(ORDERS, 100_000);
  console.log("");
  console.log(ok ? `checks: ${rows} data rows (header excluded), as many as orders seeded (cap 100,000)` : `!!! WARNING: ${rows} rows for ${ORDERS} orders`);
  if (!ok) process.exitCode = 1;
  await ours.close();
  process.exit(process.exitCode ?? 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
