// Bulk import benchmark (issue 15): a generated customer CSV of BENCH_ROWS rows (default 500,000; about 40 MB,
// with quoted fields holding commas and doubled quotes) goes through the real flow: POST /imports, the signed PUT
// streamed from disk, inspect, the mapping, then the dry run and the commit run by the same function the
// import-runner job calls, in this process. Prints for each pass: rows/s, SQL statements per row (every pg
// query, BEGIN and COMMIT included), and the process RSS at every 100k rows processed with the peak, so a reader
// can see whether memory stays flat as rows grow. A driver, not a test.
//   npx tsx bench/imports.ts                  (PostgreSQL: a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
//   BENCH_ROWS=100000 npx tsx bench/imports.ts
//   NODE_OPTIONS=--expose-gc npx tsx bench/imports.ts   (also prints the live heap after a GC at each 100k step)
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { once } from "node:events";
import { runImportPasses } from "../src/imports/import.runner";
import { beat } from "../src/shared/job-workers";
import { statementsOf } from "../test/helpers/statements";
import { codeVersion, openBenchDb, startBenchApp } from "./harness";

const ROWS = Number(process.env.BENCH_ROWS ?? 500_000);
const STEP = 100_000;
const mb = (b: number) => (b / 1024 / 1024).toFixed(0);

/** Writes the file with backpressure (never the whole file in memory). */
async function generate(file: string) {
  const out = createWriteStream(file);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, "drain");
  };
  await write("Email,First Name,Last Name,Company,Phone,Customer ID\n");
  for (let i = 1; i <= ROWS; i++) {
    await write(`buyer${i}@example.com,Buyer,"Number ${i}","Company ${i % 997}, ""Ltd""",+1 555 ${String(i).padStart(7, "0")},C-${i}\n`);
  }
  out.end();
  await once(out, "finish");
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "import-bench-"));
  const file = path.join(dir, "customers.csv");
  const g0 = performance.now();
  await generate(file);
  const bytes = statSync(file).size;
  console.log(`generated ${ROWS.toLocaleString("en-US")} rows, ${mb(bytes)} MB in ${((performance.now() - g0) / 1000).toFixed(1)} s`);

  // PostgreSQL only (BENCH_EMBEDDED is not read): statementsOf counts what pg clients send
  const bench = await openBenchDb({ embedded: false, poolMax: 10 });
  const ours = await startBenchApp(bench, { DATA_DIR: dir });
  const { base, demo, deps, config } = ours;
  const h = { "x-api-key": demo.apiKey, "content-type": "application/json" };
  const call = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${base}/api/v1/${p}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    const j = (await r.json()) as any;
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(j)}`);
    return j.data;
  };

  const c = await call("POST", "imports", { entityType: "customer", fileName: "customers.csv", fileBytes: bytes });
  const u0 = performance.now();
  const put = await fetch(c.uploadUrl, { method: "PUT", body: Readable.toWeb(createReadStream(file)) as any, duplex: "half" } as RequestInit);
  if (put.status !== 200) throw new Error(`upload ${put.status}`);
  console.log(`upload (streamed PUT): ${((performance.now() - u0) / 1000).toFixed(1)} s`);
  const ins = await call("POST", `imports/${c.importId}/inspect`, {});
  const columns = Object.fromEntries(ins.suggestions.filter((s: any) => s.field).map((s: any) => [s.header, s.field]));
  await call("PATCH", `imports/${c.importId}/mapping`, { columns, dateOrder: "mdy" });
  await beat(deps.prisma, "bench-worker");

  console.log(`RSS before the passes: ${mb(process.memoryUsage().rss)} MB (server, client and worker share this process)`);
  console.log(`\nimport of ${ROWS.toLocaleString("en-US")} customer rows on PostgreSQL, batch ${config.IMPORT_BATCH_ROWS} rows (code ${codeVersion()}; ${os.cpus().length} CPUs)`);
  for (const verb of ["validate", "commit"] as const) {
    // this process is the worker: it beats before each verb, as a running worker would every 20 s
    await beat(deps.prisma, "bench-worker");
    await call("POST", `imports/${c.importId}/${verb}`);
    // every finished batch pings the import's topic: count rows from the batches (customer batches are exact)
    let rows = 0;
    let nextStep = STEP;
    let peak = 0;
    const steps: string[] = [];
    const realChanged = deps.hub.importChanged.bind(deps.hub);
    deps.hub.importChanged = (id: string) => {
      rows = Math.min(ROWS, rows + config.IMPORT_BATCH_ROWS);
      const rss = process.memoryUsage().rss;
      peak = Math.max(peak, rss);
      if (rows >= nextStep) {
        // with --expose-gc, the live heap after a full collection too: RSS alone includes garbage not yet collected
        const g = globalThis as { gc?: () => void };
        let live = "";
        if (g.gc) {
          g.gc();
          live = ` (heap ${mb(process.memoryUsage().heapUsed)})`;
        }
        steps.push(`${(nextStep / 1000).toFixed(0)}k ${mb(rss)} MB${live}`);
        nextStep += STEP;
      }
      realChanged(id);
    };
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const t0 = performance.now();
    const { statements } = await statementsOf(() => runImportPasses(deps, { owner: "bench-worker" }));
    const secs = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    deps.hub.importChanged = realChanged;
    const imp = await call("GET", `imports/${c.importId}`);
    console.log(
      `${verb.padEnd(8)} ${imp.status}: ${imp.rowsProcessed.toLocaleString("en-US")} rows in ${secs.toFixed(1)} s = ${Math.round(imp.rowsProcessed / secs).toLocaleString("en-US")} rows/s; ` +
        `${(statements.length / imp.rowsProcessed).toFixed(3)} statements/row (${statements.length} in all); created ${imp.rowsCreated}, failed ${imp.rowsFailed}`,
    );
    console.log(`         RSS at ${steps.join(", ")}; peak ${mb(peak)} MB`);
  }
  await ours.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
