// Quote read benchmark (issue 11): GET /api/v1/quotes/{id} of a quote with 3 revisions of 20 lines and 10 comments,
// over REST and over GraphQL (the same fields), against the bare reference (bench/bare-quote.ts: node:http + pg, the
// same key lookup and one statement for the quote, the same JSON). A driver, not a test: it prints figures.
//   npx tsx bench/quotes.ts          (PostgreSQL: a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
// Knobs: BENCH_DURATION (seconds per measured run, 10), BENCH_WARMUP (seconds, 2), BENCH_CONNECTIONS (10).
// The servers (ours, then the bare one) run in this process on one counted pg pool each; the load generator is
// autocannon in a child process, so it does not share their event loop. Statements per read are the pool
// counters' deltas over 20 sequential reads (median), BEGIN/COMMIT included, the per-credential limiter on.
import { execFile } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { isDeepStrictEqual, promisify } from "node:util";
import { Pool } from "pg";
import { startBareQuote } from "./bare-quote";
import { codeVersion, countStatements, openBenchDb, startBenchApp } from "./harness";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const AUTOCANNON = path.resolve(__dirname, "../node_modules/autocannon/autocannon.js");

const QUERY = `query Q($id: ID!) { quote(id: $id) {
  id number status currency customerId customer { id email } customerEmail companyName buyerReference source shareToken buyerUrl
  expiresAt declinedReason declinedBy internalNote currentRevisionId workingRevision { ...R } revisions { ...R }
  comments { id visibility authorType authorName body createdAt } requestFormId cartId
  acceptedRevisionId acceptedAt acceptance { by name email reason items { itemId selected quantity } } checkoutSessionId orderId convertedAt createdAt updatedAt } }
fragment R on QuoteRevision { id number status items { id name description unitPrice quantity type optional selected qtyEditable sku referenceId note targetUnitPrice deliveryMethod total }
  paymentTerms { mode netN balanceNetN } deposit { type value } depositAmount collectShipping collectBilling collect { shippingAddress billingAddress }
  collectDefault { shippingAddress billingAddress } shippingMode shippingAmount subtotal shippingTotal taxTotal taxCountry notes total terms taxLines { amount jurisdiction name rateBps } parties { buyer { name email company reference billingAddress { addressLine1 addressLine2 city countryCode postalCode stateProvince } shippingAddress { addressLine1 addressLine2 city countryCode postalCode stateProvince } } seller { name legalName email phone taxId paymentInstructions address { addressLine1 addressLine2 city countryCode postalCode stateProvince } } } issuedAt supersededAt createdAt updatedAt }`;

/** BENCH_PROFILE=<target index>: a CPU profile of this process while that target is measured (written to the cwd). */
async function startProfile() {
  const { Session } = await import("node:inspector/promises");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop(file: string) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`[bench] CPU profile written to ${file}`);
    },
  };
}

let statements = 0;
const count = () => statements++;

interface Target {
  name: string;
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

/** autocannon in a child process (asynchronously: the servers share this event loop); its JSON summary. */
async function cannon(t: Target, seconds: number) {
  const args = [AUTOCANNON, "-j", "-c", String(CONNECTIONS), "-d", String(seconds), "-m", t.method];
  for (const [k, v] of Object.entries(t.headers)) args.push("-H", `${k}=${v}`);
  if (t.body) args.push("-b", t.body);
  args.push(t.url);
  const { stdout: out } = await promisify(execFile)(process.execPath, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const r = JSON.parse(out);
  return { rps: r.requests.average as number, p50: r.latency.p50 as number, p99: r.latency.p99 as number, total: r.requests.total as number, non2xx: r.non2xx as number, errors: r.errors as number };
}

/** The path of the first value that differs between two JSON values ("" when equal). */
function firstDifference(a: unknown, b: unknown, at = "$"): string {
  if (isDeepStrictEqual(a, b)) return "";
  if (a && b && typeof a === "object" && typeof b === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference((a as any)[k], (b as any)[k], `${at}.${k}`);
      if (d) return d;
    }
  }
  return `${at} (${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)})`;
}

async function fetchJson(t: Target) {
  const res = await fetch(t.url, { method: t.method, headers: t.headers, body: t.body });
  return { status: res.status, body: (await res.json()) as any };
}

async function main() {
  const bench = await openBenchDb({ embedded: false, poolMax: 10, onStatement: count });
  const ours = await startBenchApp(bench, { SECRET_KEY: "bench-secret-key-0123456789abcdefghijklmnop", RATE_LIMIT_PER_CREDENTIAL: "1000000000/1m" }, { checkoutUrl: true });
  const { base, config } = ours;
  const key = ours.demo.apiKey;

  // ---- the quote: 3 revisions of 20 lines (superseded, issued, working), 10 comments ----------------------------
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1/${p}`, { method, headers: { "content-type": "application/json", "x-api-key": key }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const items = Array.from({ length: 20 }, (_, i) => ({ name: `Line ${i + 1}`, unitPrice: 1000 + i * 37, quantity: 1 + (i % 4), sku: `SKU-${i}`, optional: i % 6 === 5, qtyEditable: i % 2 === 0, note: i % 3 ? null : "per spec" }));
  const q = await call("POST", "quotes", { customerEmail: "bench@example.com", companyName: "Bench Co", buyerReference: "PO-1", internalNote: "bench", items, paymentTerms: { mode: "net_terms", netN: 30 } });
  await call("POST", `quotes/${q.id}/issue`, {});
  const r2 = await call("POST", `quotes/${q.id}/revisions`);
  await call("PATCH", `quotes/${q.id}/revisions/${r2.id}`, { items: r2.items.map((i: any) => ({ id: i.id, name: i.name, unitPrice: i.unitPrice - 10, quantity: i.quantity })) });
  await call("POST", `quotes/${q.id}/issue`, {});
  await call("POST", `quotes/${q.id}/revisions`);
  for (let i = 0; i < 10; i++) await call("POST", `quotes/${q.id}/comments`, { body: `Comment ${i + 1}: ${"lorem ipsum ".repeat(4)}`, visibility: i % 3 ? "shared" : "internal" });

  const barePool = new Pool({ connectionString: bench.created.url, max: 10 });
  countStatements(barePool, count);
  const bare = await startBareQuote(barePool, config);

  const targets: Target[] = [
    { name: "REST GET /quotes/{id}", url: `${base}/api/v1/quotes/${q.id}`, method: "GET", headers: { "x-api-key": key } },
    { name: "GraphQL quote(id)", url: `${base}/graphql`, method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ query: QUERY, variables: { id: q.id } }) },
    { name: "bare node:http + pg", url: `${bare.url}/api/v1/quotes/${q.id}`, method: "GET", headers: { "x-api-key": key } },
  ];

  // ---- the same JSON ----------------------------------------------------------------------------------------------
  const [rest, gql, bareRes] = await Promise.all(targets.map(fetchJson));
  const checks: string[] = [];
  if (rest.status !== 200 || bareRes.status !== 200 || gql.status !== 200) checks.push(`statuses ${rest.status} / ${gql.status} / ${bareRes.status}`);
  if (!isDeepStrictEqual(rest.body, bareRes.body)) checks.push("the bare JSON differs from the REST JSON");
  if (!isDeepStrictEqual(gql.body?.data?.quote, rest.body?.data)) checks.push(`the GraphQL quote differs from the REST quote at ${firstDifference(gql.body?.data?.quote, rest.body?.data)}`);
  const shape = rest.body.data;
  const size = Buffer.byteLength(JSON.stringify(rest.body));

  // ---- statements per read (sequential) ------------------------------------------------------------------------------
  const perRead: Record<string, number> = {};
  for (const t of targets) {
    await fetchJson(t);
    const deltas: number[] = [];
    for (let i = 0; i < 20; i++) {
      const before = statements;
      await fetchJson(t);
      deltas.push(statements - before);
    }
    deltas.sort((a, b) => a - b);
    perRead[t.name] = deltas[10];
  }

  // ---- throughput ---------------------------------------------------------------------------------------------------
  const results: Record<string, Awaited<ReturnType<typeof cannon>>> = {};
  for (const t of targets) {
    process.stdout.write(`[bench] ${t.name}: ${WARMUP} s warm-up, ${DURATION} s measured ... `);
    await cannon(t, WARMUP);
    const profile = process.env.BENCH_PROFILE && t === targets[Number(process.env.BENCH_PROFILE)] ? await startProfile() : null;
    results[t.name] = await cannon(t, DURATION);
    if (profile) await profile.stop(`quotes-${process.env.BENCH_PROFILE}.cpuprofile`);
    console.log(`${Math.round(results[t.name].rps)} req/s`);
  }

  console.log("");
  console.log(`code: ${codeVersion(["src", "prisma", "bench"])}; node ${process.version}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}); load average at end ${os.loadavg()[0].toFixed(2)}`);
  console.log(`database: PostgreSQL ${(await barePool.query("SHOW server_version")).rows[0].server_version}; pools of 10; ${CONNECTIONS} connections, ${DURATION} s per target`);
  console.log(`quote: ${shape.revisions.length} revisions (${shape.revisions.map((r: any) => `${r.status} ${r.items.length} lines`).join(", ")}), ${shape.comments.length} comments; response ${size} bytes`);
  console.log("");
  console.log("| target | req/s (avg) | p50 ms | p99 ms | vs bare | SQL statements per read | requests | non-2xx | errors |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const bareRps = results[targets[2].name].rps;
  for (const t of targets) {
    const r = results[t.name];
    console.log(`| ${t.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${(r.rps / bareRps).toFixed(3)} | ${perRead[t.name]} | ${r.total} | ${r.non2xx} | ${r.errors} |`);
    if (r.non2xx || r.errors) checks.push(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  }
  console.log(`ratios: REST / bare ${(results[targets[0].name].rps / bareRps).toFixed(3)}; GraphQL / bare ${(results[targets[1].name].rps / bareRps).toFixed(3)}; GraphQL / REST ${(results[targets[1].name].rps / results[targets[0].name].rps).toFixed(3)}`);
  if (checks.length) {
    for (const c of checks) console.warn(`!!! WARNING: ${c}`);
    process.exitCode = 1;
  } else {
    console.log("checks: REST, GraphQL and bare return the same quote; every response 2xx");
  }

  await bare.close();
  await barePool.end();
  await ours.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
