// Benchmark (not a test): GET /api/v1/whoami and the GraphQL `viewer` query against the real service, next to a
// bare node:http server as the baseline. Everything runs on 127.0.0.1 and stops by itself.
//
//   npx tsx bench/whoami.ts                        # embedded PGlite (DATABASE_URL is never inherited)
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/whoami.ts
//                                                  # real PostgreSQL: creates bench_<random> there, drops it after
//
// On PostgreSQL a fourth target is the bare reference for whoami itself: node:http + pg running the same key lookup
// (bench/bare-http.ts with BARE_DATABASE_URL). The last line prints viewer/whoami and whoami/bare-lookup ratios.
// Knobs: BENCH_DURATION (seconds per measured run, default 10), BENCH_CONNECTIONS (default 10),
//        BENCH_WARMUP (seconds of warm-up before each measured run, default 2).
// The load generator (autocannon, in this process), the service and the database share the machine's cores.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { Client } from "pg";
import { type Child, codeVersion, describeExit, freePort, httpOk, intEnv, isRunning, spawnTsx, stopChild, waitFor } from "./harness";

const VIEWER_QUERY = "{ viewer { type scopes workspace { id slug } environment { id slug kind } apiKey { id keyPrefix } } }";

const DURATION = intEnv("BENCH_DURATION", 10);
const CONNECTIONS = intEnv("BENCH_CONNECTIONS", 10);
const WARMUP = intEnv("BENCH_WARMUP", 2);
const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL || undefined;

// ---- cleanup --------------------------------------------------------------------------------------------

const children: Child[] = [];
let tmpDir: string | undefined;
let dropDatabase: (() => Promise<void>) | undefined;
let cleanedUp: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleanedUp ??= (async () => {
    await Promise.all(children.map((c) => stopChild(c, 10_000, "bench")));
    if (dropDatabase) {
      try {
        await dropDatabase();
      } catch (e) {
        console.error(`[bench] could not drop the bench database: ${(e as Error).message}`);
      }
    }
    if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
  })();
  return cleanedUp;
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    console.error(`[bench] ${sig}: stopping children and cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---- measurement ----------------------------------------------------------------------------------------

interface Target {
  name: string;
  url: string;
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

interface Row {
  target: Target;
  result: autocannon.Result;
  p50: number;
  p99: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** One autocannon run; also keeps every response time (autocannon's own histogram rounds to whole ms). */
function cannon(t: Target, seconds: number): Promise<{ result: autocannon.Result; times: Float64Array }> {
  return new Promise((resolve, reject) => {
    const times: number[] = [];
    const instance = autocannon(
      { url: t.url, method: t.method, headers: t.headers, body: t.body, connections: CONNECTIONS, duration: seconds, timeout: 10 },
      (err, result) => (err ? reject(err) : resolve({ result, times: Float64Array.from(times).sort() })),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => void times.push(responseTime));
  });
}

async function measure(t: Target): Promise<Row> {
  process.stdout.write(`[bench] ${t.name}: ${WARMUP} s warm-up, `);
  await cannon(t, WARMUP);
  process.stdout.write(`${DURATION} s measured ... `);
  const { result, times } = await cannon(t, DURATION);
  const row = { target: t, result, p50: percentile(times, 50), p99: percentile(times, 99) };
  console.log(`${Math.round(result.requests.average)} req/s`);
  if (result.non2xx !== 0) {
    console.error("\n" + "!".repeat(100));
    console.error(`!!! WARNING: ${t.name}: ${result.non2xx} non-2xx responses of ${result.requests.total} — these figures are NOT valid`);
    console.error(`!!! status codes: ${JSON.stringify(result.statusCodeStats ?? {})}`);
    console.error("!".repeat(100) + "\n");
    process.exitCode = 1;
  }
  if (result.errors !== 0 || result.timeouts !== 0) {
    console.error(`!!! WARNING: ${t.name}: ${result.errors} connection errors, ${result.timeouts} timeouts`);
    process.exitCode = 1;
  }
  return row;
}

// ---- preflight: prove each target answers what we think before we load it -----------------------------

async function preflight(t: Target, check: (json: any) => boolean): Promise<string> {
  const res = await fetch(t.url, { method: t.method, headers: t.headers, body: t.body, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.status !== 200 || !check(json)) throw new Error(`preflight ${t.name}: unexpected answer ${res.status} ${text.slice(0, 500)}`);
  return text;
}

// ---- main -----------------------------------------------------------------------------------------------

async function main() {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-whoami-"));

  let databaseUrl: string | undefined;
  let dbLabel = "embedded PGlite";
  if (BENCH_DATABASE_URL) {
    const dbName = `bench_${randomBytes(6).toString("hex")}`;
    const admin = new Client({ connectionString: BENCH_DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ server_version: string }>("SHOW server_version");
      await admin.query(`CREATE DATABASE "${dbName}"`);
      dbLabel = `PostgreSQL ${rows[0].server_version} (fresh database ${dbName})`;
    } finally {
      await admin.end();
    }
    dropDatabase = async () => {
      const c = new Client({ connectionString: BENCH_DATABASE_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    };
    const u = new URL(BENCH_DATABASE_URL);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }

  // The service: never inherits DATABASE_URL from this shell; only BENCH_DATABASE_URL turns PostgreSQL on.
  const servicePort = await freePort();
  // The per-credential limit stays on (its cost is part of every request) at a level this load never reaches.
  const serviceEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(servicePort),
    HOST: "127.0.0.1",
    DATA_DIR: tmpDir,
    LOG_LEVEL: "error",
    RATE_LIMIT_PER_CREDENTIAL: process.env.RATE_LIMIT_PER_CREDENTIAL ?? "1000000000/1m",
  };
  delete serviceEnv.DATABASE_URL;
  if (databaseUrl) serviceEnv.DATABASE_URL = databaseUrl;
  const base = `http://127.0.0.1:${servicePort}`;
  console.log(`[bench] starting the service on ${base} (${dbLabel}, DATA_DIR=${tmpDir})`);
  const t0 = Date.now();
  const service = spawnTsx("service", ["src/main.ts"], serviceEnv);
  children.push(service);
  await waitFor("GET /readyz = 200", service, 60_000, () => httpOk(`${base}/readyz`));
  const apiKey = await waitFor("the first-start credentials line", service, 5_000, async () => {
    const line = service.stdout.find((l) => l.trimStart().startsWith("{"));
    return line ? (JSON.parse(line).apiKey as string | undefined) : undefined;
  });
  // the line comes after the first start's bootstrap and signing keys, which may finish after /readyz answers
  const listening = await waitFor("the listening line", service, 30_000, async () => service.stdout.find((l) => /listening on/.test(l)));
  const serviceDbKind = /^\[(\w+)\]/.exec(listening)?.[1] ?? "unknown";
  const expectedKind = databaseUrl ? "pg" : "pglite";
  if (serviceDbKind !== expectedKind) throw new Error(`service reports database kind "${serviceDbKind}", expected "${expectedKind}": ${listening}`);
  console.log(`[bench] service ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${listening.trim()}`);

  const whoami: Target = { name: "GET /api/v1/whoami", url: `${base}/api/v1/whoami`, method: "GET", headers: { "x-api-key": apiKey } };
  const graphql: Target = {
    name: "POST /graphql viewer",
    url: `${base}/graphql`,
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({ query: VIEWER_QUERY }),
  };
  const whoamiBody = await preflight(whoami, (j) => j?.data?.type === "api_key" && typeof j.data.apiKey?.keyPrefix === "string");
  await preflight(graphql, (j) => !j?.errors && j?.data?.viewer?.type === "api_key");

  // The baseline serves the very bytes whoami just returned, so response sizes match.
  const barePort = await freePort();
  const bare = spawnTsx("bare-http", ["bench/bare-http.ts"], { ...process.env, PORT: String(barePort), BARE_BODY: whoamiBody });
  children.push(bare);
  const bareTarget: Target = { name: "bare node:http GET", url: `http://127.0.0.1:${barePort}/`, method: "GET" };
  await waitFor("the bare server", bare, 30_000, () => httpOk(bareTarget.url));
  await preflight(bareTarget, (j) => j?.data?.type === "api_key");

  // On PostgreSQL, the bare reference for whoami itself: node:http + pg running the same lookup on the same database.
  let barePg: Target | null = null;
  if (databaseUrl) {
    const port = await freePort();
    const c = spawnTsx("bare-http+pg", ["bench/bare-http.ts"], { ...process.env, PORT: String(port), BARE_DATABASE_URL: databaseUrl });
    children.push(c);
    barePg = { name: "bare node:http + pg lookup", url: `http://127.0.0.1:${port}/`, method: "GET", headers: { "x-api-key": apiKey } };
    const target = barePg;
    await waitFor("the bare http+pg server", c, 30_000, async () => {
      const r = await fetch(target.url, { headers: target.headers, signal: AbortSignal.timeout(2_000) });
      await r.arrayBuffer();
      return r.status === 200 ? true : undefined;
    });
    await preflight(barePg, (j) => j?.data?.type === "api_key" && j.data.apiKey?.keyPrefix === JSON.parse(whoamiBody).data.apiKey.keyPrefix);
  }

  const cpus = os.cpus();
  const info = [
    `date:        ${new Date().toISOString()}`,
    `code:        ${codeVersion()}`,
    `node:        ${process.version} (${os.platform()} ${os.release()} ${os.arch()})`,
    `cpu:         ${cpus[0]?.model ?? "unknown"} x ${cpus.length} cores (available parallelism ${os.availableParallelism()})`,
    `load avg:    ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (1/5/15 min, before the runs)`,
    `database:    ${dbLabel}`,
    `load:        autocannon ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s measured per target, in this process`,
    `body sizes:  whoami ${Buffer.byteLength(whoamiBody)} B, bare ${Buffer.byteLength(whoamiBody)} B`,
  ];
  console.log(info.join("\n"));

  const rows: Row[] = [];
  for (const t of [whoami, graphql, bareTarget, ...(barePg ? [barePg] : [])]) rows.push(await measure(t));

  const bareRps = rows[2].result.requests.average;
  const ms = (v: number) => v.toFixed(2);
  const table = [
    ["target", "req/s (avg)", "p50 ms", "p99 ms", "vs bare", "requests", "non-2xx", "errors"],
    ...rows.map((r) => [
      r.target.name,
      r.result.requests.average.toFixed(0),
      ms(r.p50),
      ms(r.p99),
      `${(r.result.requests.average / bareRps).toFixed(3)}x`,
      String(r.result.requests.total),
      String(r.result.non2xx),
      String(r.result.errors + r.result.timeouts),
    ]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const fmt = (row: string[]) => `| ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  console.log();
  console.log(fmt(table[0]));
  console.log(`| ${widths.map((w, i) => (i === 0 ? "-".repeat(w) : "-".repeat(w - 1) + ":")).join(" | ")} |`);
  for (const row of table.slice(1)) console.log(fmt(row));
  console.log(
    "\np50/p99 are computed from every response time (autocannon's histogram rounds to whole ms: " +
      rows.map((r) => `${r.target.name} p50 ${r.result.latency.p50} / p99 ${r.result.latency.p99}`).join("; ") +
      ")",
  );

  const rps = (i: number) => rows[i].result.requests.average;
  console.log(`\nratios: viewer / whoami ${(rps(1) / rps(0)).toFixed(3)}${rows[3] ? `; whoami / bare http+pg lookup ${(rps(0) / rps(3)).toFixed(3)}` : ""}`);

  if (!isRunning(service)) throw new Error(describeExit(service));
  for (const c of children) {
    if (!c.stderr.length) continue;
    console.error(`\n!!! ${c.name} wrote ${c.stderr.length} line(s) to stderr during the run:`);
    console.error(c.stderr.slice(0, 50).join("\n"));
    process.exitCode = 1;
  }
}

main()
  .catch((e) => {
    console.error(`[bench] failed: ${e instanceof Error ? e.stack : String(e)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
