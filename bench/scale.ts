// Scale-out simulation (docs/scaling.md), over loopback: 1, then 2, then 4 API processes (`node_modules/.bin/tsx
// src/main.ts`, each on its own port) on ONE fresh PostgreSQL database and one Redis, with requests spread
// round-robin over the processes as a load balancer would. A driver, not a test: it prints figures and checks.
//
//   npx tsx bench/scale.ts
//
// For each N: (a) single-flight across processes: 50 concurrent POST /checkout-sessions/{id}/complete on ONE session,
// request i sent to process i % N -> exactly one 200, one order, one captured payment, one capture transaction; and
// 10 sessions on one cart completed at once across the processes -> one order, one captured payment;
// (b) throughput: the storefront scenario of bench/checkout.ts (POST /carts, 3 x POST /carts/{id}/items,
// POST /checkout/sessions, POST /checkout-sessions/{id}/complete with tok_visa) from 20 concurrent workers, EVERY
// request to the next process in turn (a cart made on one process gets its lines on others), BENCH_ITERATIONS
// scenarios in all -> orders/s, scenario p50/p99; orders in the database must equal the scenarios run.
//
// The first process migrates the database and bootstraps it (its first-start line gives the API key); the others
// start after it is ready (they find the migrations applied and the database not empty) and are waited for on
// /readyz one by one. Processes are kept between steps: N=2 adds one, N=4 adds two more.
//
// Knobs: BENCH_ITERATIONS (200 scenarios per N), BENCH_WARMUP (20 scenarios per N, not timed), BENCH_WORKERS (20),
//        BENCH_PROCESSES ("1,2,4"), BENCH_POOL_MAX (DATABASE_POOL_MAX of each process, default 10),
//        BENCH_JOBS ("all": every process runs Agenda and the delivery worker, as plain `npm start` does and as
//        docs/scaling.md suggests today; "first": only the first, the others `--no-jobs`; "none": all `--no-jobs`),
//        BENCH_DATABASE_URL (the server to create the database on, default the local
//        one), BENCH_REDIS_URL (default redis://127.0.0.1:6379; "off" leaves REDIS_URL unset: rate limits then count
//        in PostgreSQL and subscriptions stay in-process).
// Everything (N services, PostgreSQL, Redis, this load generator) shares the machine's cores: on a 2-core machine
// more than two API processes cannot add CPU, and the figures show contention rather than the scaling of a bigger host.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { Client } from "pg";
import { createTestDatabase, DEFAULT_PG_URL } from "../test/helpers/db";
import { type Child, codeVersion, describeExit, fmt, freePort, httpOk, intEnv, isRunning, pct, signalGroup, sleep, spawnTsx, stopChild, waitFor } from "./harness";

const ITERATIONS = intEnv("BENCH_ITERATIONS", 200);
const WARMUP = intEnv("BENCH_WARMUP", 20, 0);
const WORKERS = intEnv("BENCH_WORKERS", 20);
const POOL_MAX = intEnv("BENCH_POOL_MAX", 10);
const STEPS_N = (process.env.BENCH_PROCESSES || "1,2,4").split(",").map((s) => Number(s.trim()));
if (STEPS_N.some((n, i) => !Number.isInteger(n) || n < 1 || (i > 0 && n <= STEPS_N[i - 1]))) {
  throw new Error(`BENCH_PROCESSES must be increasing positive integers like 1,2,4, got "${process.env.BENCH_PROCESSES}"`);
}
const JOBS = (process.env.BENCH_JOBS || "all") as "first" | "all" | "none";
if (!["first", "all", "none"].includes(JOBS)) throw new Error(`BENCH_JOBS must be first, all or none, got "${JOBS}"`);
const PG_SERVER = process.env.BENCH_DATABASE_URL || DEFAULT_PG_URL;
const REDIS_URL = process.env.BENCH_REDIS_URL === "off" ? undefined : process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379";

const SINGLE_FLIGHT = 50;
const CART_SESSIONS = 10;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const LINES = [
  { name: "Widget", unitPrice: 1500, quantity: 2 },
  { name: "Gadget", unitPrice: 2500, quantity: 1 },
  { name: "Setup", unitPrice: 10000, quantity: 1, type: "service" },
];
const EXPECTED_TOTAL = 15500; // no shipping selected, no tax lines: the sum of the lines (as bench/checkout.ts)
const GENEROUS = "1000000000/1m"; // every limit stays on (its store round trips are part of the cost) but is never reached

// ---- child processes: `src/main.ts`, each on its own port ----------------------------------------------------

const children: (Child & { base: string })[] = [];

function startChild(name: string, port: number, env: NodeJS.ProcessEnv, args: string[]) {
  const child = Object.assign(spawnTsx(name, ["src/main.ts", ...args], env), { base: `http://127.0.0.1:${port}` });
  children.push(child);
  return child;
}

// main.ts gives itself 10 s to shut down before it exits on its own
const stop = (c: Child) => stopChild(c, 12_000, "scale");

// ---- cleanup: every child, the database, the Redis keys, the temporary folder --------------------------------

let dropDatabase: (() => Promise<void>) | undefined;
let tmpDir: string | undefined;
let redisNamespace: string | undefined;
/** this bench's own connection to the database (counts rows); closed before the database is dropped */
let sqlClient: Client | undefined;
let cleanedUp: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleanedUp ??= (async () => {
    await Promise.all(children.map(stop));
    await sqlClient?.end().catch(() => {});
    if (dropDatabase) {
      try {
        await dropDatabase();
      } catch (e) {
        console.error(`[scale] could not drop the bench database: ${(e as Error).message}`);
      }
    }
    if (REDIS_URL && redisNamespace) {
      const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await r.connect();
        let cursor = "0";
        do {
          const [next, keys] = await r.scan(cursor, "MATCH", `${redisNamespace}:*`, "COUNT", 500);
          if (keys.length) await r.del(...keys);
          cursor = next;
        } while (cursor !== "0");
      } catch (e) {
        console.error(`[scale] could not remove the Redis keys ${redisNamespace}:*: ${(e as Error).message}`);
      } finally {
        r.disconnect();
      }
    }
    if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
  })();
  return cleanedUp;
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    console.error(`[scale] ${sig}: stopping the services and cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}
// Last resort (an exit path that skipped cleanup): no service outlives this process.
process.on("exit", () => {
  for (const c of children) if (isRunning(c)) signalGroup(c, "SIGKILL");
});

// ---- HTTP ---------------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  body: any;
}

async function request(base: string, method: string, urlPath: string, body?: unknown, key?: string): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers["x-api-key"] = key;
  const res = await fetch(`${base}/api/v1/${urlPath}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = { unparsed: text.slice(0, 300) };
  }
  return { status: res.status, body: json };
}

const problems: string[] = [];
const errorSamples: string[] = [];
function sample(s: string) {
  if (errorSamples.length < 10) errorSamples.push(s);
}

/** A 2xx answer's body, or a thrown error (counted by the caller). */
async function ok(base: string, step: string, method: string, urlPath: string, body?: unknown, key?: string) {
  const r = await request(base, method, urlPath, body, key);
  if (r.status < 200 || r.status >= 300) {
    sample(`${step}: ${method} ${base}/api/v1/${urlPath} -> ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    throw new Error(`${step}: HTTP ${r.status}`);
  }
  return r.body;
}

// ---- stats ---------------------------------------------------------------------------------------------------

/** Busy and total jiffies of all cores (Linux /proc/stat), for the machine's CPU use over a phase. */
function cpuTimes(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

// ---- main ----------------------------------------------------------------------------------------------------

interface Row {
  n: number;
  planned: number;
  completed: number;
  wallMs: number;
  p50: number;
  p99: number;
  completeP50: number;
  completeP99: number;
  ordersMatch: boolean;
  singleFlight: string;
  machineCpu: string;
  benchCpu: string;
  peakConnections: number;
}

async function main() {
  const cpus = os.cpus();
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-scale-"));
  redisNamespace = `scale-${randomBytes(4).toString("hex")}`;

  if (REDIS_URL) {
    const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3_000, retryStrategy: () => null });
    try {
      await r.connect();
      await r.ping();
    } catch (e) {
      throw new Error(`Redis at ${REDIS_URL} does not answer (${(e as Error).message}); start it, or set BENCH_REDIS_URL=off`, { cause: e });
    } finally {
      r.disconnect();
    }
  }

  const created = await createTestDatabase(PG_SERVER);
  dropDatabase = created.drop;
  const dbName = new URL(created.url).pathname.slice(1);
  const sql = new Client({ connectionString: created.url });
  sqlClient = sql;
  sql.on("error", (e) => console.error(`[scale] the bench's database connection failed: ${e.message}`));
  await sql.connect();
  const one = async <T = any>(text: string, values: unknown[] = []) => (await sql.query(text, values)).rows[0] as T;
  const count = async (text: string, values: unknown[] = []) => Number((await one<{ n: string }>(text, values)).n);
  const serverVersion = (await one<{ server_version: string }>("SHOW server_version")).server_version;
  const maxConnections = Number((await one<{ max_connections: string }>("SHOW max_connections")).max_connections);

  const maxN = STEPS_N[STEPS_N.length - 1];
  console.log(`machine:     ${cpus.length} cores (${cpus[0]?.model ?? "unknown"}), ${Math.round(os.totalmem() / 2 ** 30)} GB, node ${process.version}, ${os.type()} ${os.release()}`);
  console.log(`load avg:    ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (1/5/15 min, before the run)`);
  console.log(`code:        ${codeVersion(["src", "prisma", "jobs"])}`);
  console.log(`database:    PostgreSQL ${serverVersion}, fresh database ${dbName} (dropped after); max_connections ${maxConnections}`);
  console.log(`pools:       DATABASE_POOL_MAX=${POOL_MAX} per process: ${maxN} x ${POOL_MAX} = ${maxN * POOL_MAX} connections at most at N=${maxN}`);
  console.log(`redis:       ${REDIS_URL ? `${REDIS_URL} (rate limits and event fan-out; RATE_LIMIT_NAMESPACE=${redisNamespace})` : "off (rate limits count in PostgreSQL)"}`);
  console.log(`jobs:        ${{ first: "process 1 runs Agenda + the delivery worker; the others --no-jobs", all: "every process runs Agenda + the delivery worker", none: "every process --no-jobs" }[JOBS]}`);
  console.log(`load:        ${WORKERS} workers, every request to the next process in turn; ${WARMUP} warm-up + ${ITERATIONS} timed scenarios per N`);
  if (cpus.length <= 2) {
    console.log(`NOTE:        this machine has ${cpus.length} cores shared by every API process, PostgreSQL, Redis and this load generator:`);
    console.log("             more API processes cannot add CPU here; expect flat or falling orders/s and rising latency as N grows.");
  }
  console.log("");

  // Every process: one database, one Redis namespace, one SECRET_KEY, limits the load never reaches.
  const secret = randomBytes(32).toString("hex");
  const envFor = (port: number): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "development",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: created.url,
      DATABASE_POOL_MAX: String(POOL_MAX),
      DATA_DIR: tmpDir!,
      SECRET_KEY: secret,
      LOG_LEVEL: "error",
      RATE_LIMITS: "on",
      RATE_LIMIT_NAMESPACE: redisNamespace!,
      RATE_LIMIT_PER_CREDENTIAL: GENEROUS,
      RATE_LIMIT_AUTH_FAILURES_PER_IP: GENEROUS,
      RATE_LIMIT_CHECKOUT_PER_IP: GENEROUS,
      RATE_LIMIT_CHECKOUT_PER_SESSION: GENEROUS,
      RATE_LIMIT_DECLINES_PER_SESSION: GENEROUS,
      RATE_LIMIT_DECLINES_PER_IP: GENEROUS,
    };
    delete env.BASE_URL;
    delete env.CHECKOUT_URL;
    if (REDIS_URL) env.REDIS_URL = REDIS_URL;
    else delete env.REDIS_URL;
    return env;
  };
  const jobArgs = (index: number) => (JOBS === "all" || (JOBS === "first" && index === 0) ? [] : ["--no-jobs"]);

  async function addProcess() {
    const index = children.length;
    const port = await freePort();
    const t0 = Date.now();
    const c = startChild(`api-${index + 1}`, port, envFor(port), jobArgs(index));
    await waitFor("GET /readyz = 200", c, 120_000, () => httpOk(`${c.base}/readyz`));
    await waitFor("the listening line", c, 30_000, async () => c.stdout.find((l) => /listening on/.test(l)));
    const listening = c.stdout.find((l) => /listening on/.test(l))!;
    if (!listening.startsWith("[pg]")) throw new Error(`${c.name} is not on PostgreSQL: ${listening}`);
    console.log(`[scale] ${c.name} ready on ${c.base} in ${((Date.now() - t0) / 1000).toFixed(1)} s${jobArgs(index).length ? " (--no-jobs)" : " (with jobs)"}`);
    return c;
  }

  // ---- the first process: migrates, bootstraps, prints the credentials ----------------------------------------
  const first = await addProcess();
  const creds = await waitFor("the first-start credentials line", first, 10_000, async () => {
    const line = first.stdout.find((l) => l.trimStart().startsWith("{"));
    return line ? (JSON.parse(line) as { apiKey: string; applicationId: string }) : undefined;
  });
  const key = creds.apiKey;
  await ok(first.base, "settings", "PUT", "shipping-tax/settings", { flatRates: [{ methodId: "std", displayName: "Standard", rateAmount: 700 }], taxRates: { US: { rateBps: 1000 } } }, key);

  let rr = 0;
  const bases = () => children.map((c) => c.base);
  const next = () => {
    const b = bases();
    return b[rr++ % b.length];
  };

  async function cartWithLines(): Promise<string> {
    const cart = await ok(next(), "cart", "POST", "carts", { applicationId: creds.applicationId, customerEmail: "buyer@example.com" }, key);
    for (const [i, line] of LINES.entries()) await ok(next(), `line ${i + 1}`, "POST", `carts/${cart.data.id}/items`, line, key);
    return cart.data.id as string;
  }
  async function sessionOn(cartId: string): Promise<string> {
    const s = await ok(next(), "session", "POST", "checkout/sessions", { applicationId: creds.applicationId, cartId, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cancel" }, key);
    return s.data.id as string;
  }
  const complete = (base: string, sessionId: string) => request(base, "POST", `checkout-sessions/${sessionId}/complete`, { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS });

  let failedScenarios = 0;
  const non2xx = new Map<string, number>();

  /** One storefront checkout, every request to the next process. */
  async function scenario(): Promise<{ ms: number; completeMs: number } | null> {
    const t0 = performance.now();
    try {
      const cartId = await cartWithLines();
      const sessionId = await sessionOn(cartId);
      const base = next();
      const c0 = performance.now();
      const done = await complete(base, sessionId);
      const t1 = performance.now();
      if (done.status !== 200 || !done.body?.data?.orderId || done.body.data.paymentStatus !== "captured") {
        non2xx.set(`complete ${done.status}`, (non2xx.get(`complete ${done.status}`) ?? 0) + 1);
        sample(`complete via ${base} -> ${done.status} ${JSON.stringify(done.body).slice(0, 300)}`);
        throw new Error(`complete: HTTP ${done.status}`);
      }
      return { ms: t1 - t0, completeMs: t1 - c0 };
    } catch (e) {
      failedScenarios++;
      const m = /^([\w ]+): HTTP (\d+)$/.exec((e as Error).message);
      if (m) {
        if (m[1] !== "complete") non2xx.set(`${m[1]} ${m[2]}`, (non2xx.get(`${m[1]} ${m[2]}`) ?? 0) + 1);
      } else sample(String(e));
      return null;
    }
  }

  /** (a) 50 completes of one session and 10 sessions of one cart, spread over the processes. */
  async function singleFlight(n: number): Promise<string> {
    const issues: string[] = [];
    const sessionId = await sessionOn(await cartWithLines());
    const b = bases();
    const results = await Promise.all(Array.from({ length: SINGLE_FLIGHT }, (_, i) => complete(b[i % n], sessionId)));
    const wins = results.filter((r) => r.status === 200);
    const odd = results.filter((r) => r.status !== 200 && !["checkout_in_progress", "session_not_open"].includes(r.body?.error?.code));
    const statuses = [...results.reduce((m, r) => m.set(`${r.status} ${r.body?.error?.code ?? "ok"}`, (m.get(`${r.status} ${r.body?.error?.code ?? "ok"}`) ?? 0) + 1), new Map<string, number>())]
      .map(([k, v]) => `${k} x${v}`)
      .join(", ");
    if (wins.length !== 1) issues.push(`${wins.length} of ${SINGLE_FLIGHT} completes answered 200`);
    if (odd.length) issues.push(`unexpected answers: ${odd.slice(0, 3).map((r) => `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`).join("; ")}`);
    const orders = await count(`SELECT count(*) AS n FROM "Order" WHERE "checkoutSessionId" = $1::uuid`, [sessionId]);
    const payments = await count(`SELECT count(*) AS n FROM "Payment" WHERE "checkoutSessionId" = $1::uuid`, [sessionId]);
    const captured = await count(`SELECT count(*) AS n FROM "Payment" WHERE "checkoutSessionId" = $1::uuid AND status = 'captured'`, [sessionId]);
    const captures = await count(`SELECT count(*) AS n FROM "Transaction" t JOIN "Payment" p ON p.id = t."paymentId" WHERE p."checkoutSessionId" = $1::uuid AND t.type = 'capture'`, [sessionId]);
    if (orders !== 1 || payments !== 1 || captured !== 1 || captures !== 1) issues.push(`one session: ${orders} order(s), ${payments} payment(s), ${captured} captured, ${captures} capture transaction(s)`);
    console.log(`[scale] N=${n} single-flight: ${SINGLE_FLIGHT} completes of one session over ${n} process(es): ${statuses}; database: ${orders} order, ${payments} payment, ${captured} captured, ${captures} capture`);

    const cartId = await cartWithLines();
    const sessions: string[] = [];
    for (let i = 0; i < CART_SESSIONS; i++) sessions.push(await sessionOn(cartId));
    const byCart = await Promise.all(sessions.map((s, i) => complete(b[i % n], s)));
    const cartWins = byCart.filter((r) => r.status === 200).length;
    const cartOdd = byCart.filter((r) => r.status !== 200 && !(r.status === 422 && r.body?.error?.details?.reason === "cart_already_ordered"));
    const cartOrders = await count(`SELECT count(*) AS n FROM "Order" WHERE "cartId" = $1::uuid`, [cartId]);
    const cartPayments = await count(`SELECT count(*) AS n FROM "Payment" WHERE "checkoutSessionId" = ANY($1::uuid[])`, [sessions]);
    const cartCaptured = await count(`SELECT count(*) AS n FROM "Payment" WHERE "checkoutSessionId" = ANY($1::uuid[]) AND status = 'captured'`, [sessions]);
    if (cartWins !== 1) issues.push(`${cartWins} of ${CART_SESSIONS} sessions on one cart completed`);
    if (cartOdd.length) issues.push(`unexpected cart-race answers: ${cartOdd.slice(0, 3).map((r) => `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`).join("; ")}`);
    if (cartOrders !== 1 || cartPayments !== 1 || cartCaptured !== 1) issues.push(`one cart: ${cartOrders} order(s), ${cartPayments} payment(s), ${cartCaptured} captured`);
    console.log(`[scale] N=${n} one cart, ${CART_SESSIONS} sessions completed at once: ${cartWins} x 200, ${byCart.length - cartWins - cartOdd.length} x 422 cart_already_ordered, ${cartOdd.length} other; database: ${cartOrders} order, ${cartPayments} payment, ${cartCaptured} captured`);
    return issues.length ? `NO: ${issues.join("; ")}` : "yes";
  }

  /** (b) WORKERS workers run `planned` scenarios between them. */
  async function throughput(n: number, planned: number, timed: boolean) {
    const times: number[] = [];
    const completes: number[] = [];
    const failedBefore = failedScenarios;
    const ordersBefore = await count(`SELECT count(*) AS n FROM "Order"`);
    let peak = 0;
    let sampling = timed;
    const sampler = (async () => {
      while (sampling) {
        const c = await count(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [dbName]).catch(() => 0);
        peak = Math.max(peak, c);
        await sleep(200);
      }
    })();
    const cpu0 = cpuTimes();
    const self0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        const mine = Math.floor(planned / WORKERS) + (w < planned % WORKERS ? 1 : 0);
        for (let i = 0; i < mine; i++) {
          const r = await scenario();
          if (r) {
            times.push(r.ms);
            completes.push(r.completeMs);
          }
        }
      }),
    );
    const wallMs = performance.now() - t0;
    const self1 = process.cpuUsage(self0);
    const cpu1 = cpuTimes();
    sampling = false;
    await sampler;
    const made = (await count(`SELECT count(*) AS n FROM "Order"`)) - ordersBefore;
    const failed = failedScenarios - failedBefore;
    const ordersMatch = made === planned && failed === 0;
    if (!ordersMatch) problems.push(`N=${n}${timed ? "" : " warm-up"}: ${made} orders in the database for ${planned} scenarios (${failed} failed)`);
    times.sort((a, b) => a - b);
    completes.sort((a, b) => a - b);
    const machineCpu = cpu0 && cpu1 ? `${fmt((100 * (cpu1.busy - cpu0.busy)) / (cpu1.total - cpu0.total), 0)} %` : "-";
    const benchCpu = `${fmt((100 * (self1.user + self1.system)) / 1000 / wallMs / cpus.length, 0)} %`;
    return { completed: times.length, wallMs, times, completes, ordersMatch, made, machineCpu, benchCpu, peak };
  }

  const rows: Row[] = [];
  for (const n of STEPS_N) {
    while (children.length < n) await addProcess();
    for (const c of children) if (!isRunning(c)) throw new Error(describeExit(c));
    const credsLines = children.slice(1).filter((c) => c.stdout.some((l) => l.trimStart().startsWith("{")));
    if (credsLines.length) problems.push(`${credsLines.map((c) => c.name).join(", ")} bootstrapped too (printed a credentials line)`);

    if (WARMUP) await throughput(n, WARMUP, false);
    const singleFlightOk = await singleFlight(n);
    if (singleFlightOk !== "yes") problems.push(`N=${n} single-flight: ${singleFlightOk}`);
    process.stdout.write(`[scale] N=${n}: ${ITERATIONS} scenarios, ${WORKERS} workers ... `);
    const t = await throughput(n, ITERATIONS, true);
    console.log(`${fmt((t.completed / t.wallMs) * 1000)} orders/s (${t.made} orders for ${ITERATIONS} scenarios; machine CPU ${t.machineCpu}; peak ${t.peak} connections to the database)`);
    rows.push({
      n,
      planned: ITERATIONS,
      completed: t.completed,
      wallMs: t.wallMs,
      p50: pct(t.times, 50),
      p99: pct(t.times, 99),
      completeP50: pct(t.completes, 50),
      completeP99: pct(t.completes, 99),
      ordersMatch: t.ordersMatch,
      singleFlight: singleFlightOk,
      machineCpu: t.machineCpu,
      benchCpu: t.benchCpu,
      peakConnections: t.peak,
    });
  }

  // ---- end-of-run checks over the whole database ----------------------------------------------------------------
  const orders = await count(`SELECT count(*) AS n FROM "Order"`);
  const good = await count(`SELECT count(*) AS n FROM "Order" WHERE status = 'processing' AND "paymentStatus" = 'captured' AND total = $1`, [EXPECTED_TOTAL]);
  const expected = STEPS_N.length * (WARMUP + ITERATIONS + 2); // + the single-flight order and the one-cart order per N
  if (orders !== expected) problems.push(`orders in the database: ${orders}, expected ${expected} (scenarios run + 2 races per N)`);
  if (good !== orders) problems.push(`only ${good}/${orders} orders are processing/captured with total ${EXPECTED_TOTAL}`);
  if (non2xx.size) problems.push(`non-2xx answers in scenarios: ${[...non2xx].map(([k, v]) => `${k} x${v}`).join(", ")}`);
  for (const c of children) if (!isRunning(c)) problems.push(describeExit(c));

  // ---- report ----------------------------------------------------------------------------------------------------
  console.log("");
  console.log("| N | orders/s | scenario p50 ms | scenario p99 ms | single-flight ok | checkouts | complete p50 / p99 ms | orders = scenarios | machine CPU | load generator CPU | peak DB connections |");
  console.log("| ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |");
  for (const r of rows) {
    console.log(
      `| ${r.n} | ${fmt((r.completed / r.wallMs) * 1000)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.singleFlight} | ${r.completed}/${r.planned} | ${fmt(r.completeP50)} / ${fmt(r.completeP99)} | ${r.ordersMatch ? "yes" : "NO"} | ${r.machineCpu} | ${r.benchCpu} | ${r.peakConnections} (max ${r.n * POOL_MAX}) |`,
    );
  }
  console.log("");
  console.log(`orders in the database: ${orders} (${STEPS_N.length} x (${WARMUP} warm-up + ${ITERATIONS} timed + 1 single-flight + 1 one-cart)), all processing/captured/${EXPECTED_TOTAL}: ${good === orders ? "yes" : "NO"}`);
  console.log(
    `machine CPU is all ${cpus.length} cores together over the timed phase (/proc/stat); the load generator's share is this process's CPU time over the same cores. ` +
      (cpus.length <= 2 ? `With ${cpus.length} cores shared by every process, N above ${cpus.length} measures contention, not added capacity.` : ""),
  );
  for (const c of children) {
    if (!c.stderr.length) continue;
    problems.push(`${c.name} wrote ${c.stderr.length} line(s) to stderr`);
    console.error(`\n!!! ${c.name} stderr (first 20 lines):\n${c.stderr.slice(0, 20).join("\n")}`);
  }
  if (problems.length) {
    console.warn("");
    console.warn("!".repeat(100));
    for (const p of problems) console.warn(`!!! ${p}`);
    for (const s of errorSamples) console.warn(`!!!   e.g. ${s}`);
    console.warn("!".repeat(100));
    process.exitCode = 1;
  } else {
    console.log("checks: every scenario 2xx and captured; per N exactly one order and one capture for 50 completes of one session and for 10 sessions of one cart; orders = scenarios run");
  }
}

main()
  .catch((e) => {
    console.error(`[scale] failed: ${e instanceof Error ? e.stack : String(e)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
