// Webhook delivery benchmark (issue 3): deliveries per second from the outbox to a loopback receiver, and
// commit-to-delivery latency at a steady event rate. A driver, not a test: it prints figures.
//   npx tsx bench/deliveries.ts                       (PostgreSQL at BENCH_DATABASE_URL or the local default)
//   BENCH_EMBEDDED=1 npx tsx bench/deliveries.ts      (embedded PGlite)
// Knobs: BENCH_EVENTS (default 5000), BENCH_RATE (200/s), BENCH_SECONDS (10).
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { loadConfig } from "../src/config";
import { recordEvent } from "../src/events/events.service";
import { EventHub } from "../src/shared/hub";
import { ensureWorkspace } from "../src/platform/bootstrap.service";
import { systemClock } from "../src/shared/clock";
import { limitSpecs, RateLimits, storeFor } from "../src/shared/rate-limit";
import { type Deps, makeCtx, withTx } from "../src/shared/context";
import { DeliveryWorker } from "../src/webhooks/delivery.worker";
import { closeBenchDb, openBenchDb, pct } from "./harness";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function main() {
  const bench = await openBenchDb();
  const { db } = bench;
  const config = loadConfig({ LOG_LEVEL: "error" });
  const hub = new EventHub();
  const limits = new RateLimits(limitSpecs(config), storeFor(config, db));
  const deps: Deps = { prisma: db.prisma, sql: db.sql, dbKind: db.kind, clock: systemClock, config, hub, limits };

  const arrivals = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrivals.set(String(req.headers["x-service-event-id"]), performance.now());
      res.writeHead(200).end("ok");
    });
  });
  receiver.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const ctx = makeCtx(deps);
  const w = await ensureWorkspace(ctx, { slug: "bench", name: "Bench", ownerEmail: "bench@example.com", appSlug: "b", appName: "B" });
  const tenant = { workspaceId: w.ws.id, applicationId: w.app.id, environmentId: w.sandbox.id, environmentKind: "non_production" };
  await db.prisma.webhookEndpoint.create({ data: { workspaceId: w.ws.id, applicationId: w.app.id, environmentId: w.sandbox.id, url, enabledEvents: ["order.created"], secret: "whsec_bench" } });
  const emit = (i: number) => withTx(ctx, (tx) => recordEvent(tx, tenant, "order.created", { orderId: `o_${i}`, total: 1000 + i }));

  // 1. Throughput: a backlog of EVENTS committed events, drained by one worker.
  for (let i = 0; i < EVENTS; i += 50) await Promise.all(Array.from({ length: Math.min(50, EVENTS - i) }, (_, k) => emit(i + k)));
  const worker = new DeliveryWorker(deps);
  const t0 = performance.now();
  const attempted = await worker.runUntilIdle();
  const drainMs = performance.now() - t0;
  const succeeded = await db.prisma.webhookDelivery.count({ where: { status: "succeeded" } });
  const perSec = (succeeded / drainMs) * 1000;

  // 2. Latency: RATE events/s for SECONDS, each committed in its own transaction, worker woken on commit.
  arrivals.clear();
  worker.start();
  const commits = new Map<string, number>();
  const total = RATE * SECONDS;
  const startAt = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = startAt + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(emit(EVENTS + i).then((ev) => void commits.set(ev.id, performance.now())));
  }
  await Promise.all(pending);
  const deadline = performance.now() + 30_000;
  while (arrivals.size < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await worker.stop();
  const lat = [...commits].filter(([id]) => arrivals.has(id)).map(([id, c]) => Math.max(0, arrivals.get(id)! - c)).sort((a, b) => a - b);

  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model}), node ${process.version}, database ${db.kind}`);
  console.log(`throughput: ${succeeded}/${EVENTS} delivered (${attempted} attempted) in ${drainMs.toFixed(0)} ms = ${perSec.toFixed(0)} deliveries/s`);
  console.log(`latency at ${RATE} events/s for ${SECONDS} s: ${lat.length}/${total} delivered; commit-to-delivery p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms, max ${lat[lat.length - 1].toFixed(1)} ms`);

  receiver.closeAllConnections();
  receiver.close();
  await closeBenchDb(bench);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
