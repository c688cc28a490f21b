// Rate limiter cost on the hottest route (issue 8): GET /api/v1/whoami with the limiter on (a per-credential limit
// this load never reaches, so every request takes the limiter's path) and off, in one process: the app on a fresh
// database and a load loop of CONNECTIONS concurrent keep-alive fetches. Prints requests/s and the process's CPU
// time per request (user + system, service and load loop together: the loop's share is the same in both modes).
// A driver, not a test.
//   npx tsx bench/limiter.ts                  limiter on, PostgreSQL (BENCH_DATABASE_URL or the local default)
//   BENCH_RATE_LIMITS=off npx tsx bench/limiter.ts
//   BENCH_EMBEDDED=1 … (PGlite), REDIS_URL=redis://127.0.0.1:6379 … (the Redis store)
// Knobs: BENCH_REQUESTS (default 20000), BENCH_CONNECTIONS (10). Compare on/off in alternation (see RESULTS.md).
import type { AddressInfo } from "node:net";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { EventHub } from "../src/shared/hub";
import { bootstrapDemo } from "../src/platform/bootstrap.service";
import { systemClock } from "../src/shared/clock";
import { type Deps, makeCtx } from "../src/shared/context";
import { limitSpecs, RateLimits, storeFor } from "../src/shared/rate-limit";
import { closeBenchDb, openBenchDb } from "./harness";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const LIMITER = process.env.BENCH_RATE_LIMITS === "off" ? "off" : "on";

async function main() {
  const bench = await openBenchDb();
  const { db, created } = bench;
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "error",
    DATABASE_URL: created?.url ?? "",
    REDIS_URL: process.env.REDIS_URL ?? "",
    RATE_LIMITS: LIMITER,
    RATE_LIMIT_PER_CREDENTIAL: "1000000000/1m",
    RATE_LIMIT_NAMESPACE: `bench${process.pid}`,
  });
  const hub = new EventHub({ redisUrl: config.REDIS_URL });
  const limits = new RateLimits(limitSpecs(config), storeFor(config, db, config.RATE_LIMIT_NAMESPACE));
  const deps: Deps = { prisma: db.prisma, sql: db.sql, dbKind: db.kind, clock: systemClock, config, hub, limits };
  const app = buildApp(deps, db);
  await new Promise<void>((r) => app.server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/whoami`;
  const { apiKey } = await bootstrapDemo(makeCtx(deps), config);
  const get = async () => {
    const res = await fetch(url, { headers: { "x-api-key": apiKey } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`whoami answered ${res.status}`);
    return res;
  };
  const first = await get();
  if (LIMITER === "on" && !first.headers.get("ratelimit-limit")) throw new Error("the limiter is not on the path");
  for (let i = 0; i < 500; i++) await get(); // warm-up
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next++ < REQUESTS) await get();
  }));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const rows = db.kind === "pg" ? await db.pool!.query(`SELECT count(*)::int AS n FROM "RateLimit"`) : null;
  console.log(
    `limiter ${LIMITER} (${config.REDIS_URL ? "redis" : db.kind} store): ${REQUESTS} requests in ${(ms / 1000).toFixed(2)} s = ${((REQUESTS / ms) * 1000).toFixed(0)} req/s; ` +
      `cpu ${(((cpu.user + cpu.system) / REQUESTS)).toFixed(0)} us/request${rows ? `; RateLimit rows ${rows.rows[0].n}` : ""}`,
  );
  await app.close();
  await limits.close();
  await hub.close();
  await closeBenchDb(bench);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
