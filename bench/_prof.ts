import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import { openBenchDb, startBenchApp } from "./harness";
async function main() {
  const bench = await openBenchDb({ embedded: true });
  const texts = new Map<string, number>();
  const pg: any = bench.db.pglite;
  for (const m of ["query", "exec"]) { const orig = pg[m].bind(pg); pg[m] = (q: string, ...a: any[]) => { const k = String(q).replace(/\s+/g, " ").slice(0, 110); texts.set(k, (texts.get(k) ?? 0) + 1); return orig(q, ...a); }; }
  (globalThis as any).__texts = texts;
  const app = await startBenchApp(bench, { RATE_LIMIT_PER_CREDENTIAL: "1000000000/1m", RATE_LIMITS: process.env.RL ?? "on" });
  const hit = () => fetch(`${app.base}/api/v1/whoami`, { headers: { "x-api-key": app.demo.apiKey } }).then((r) => r.text());
  { const t = performance.now(); for (let i = 0; i < 500; i++) await pg.query("select 1"); console.log("select 1:", ((performance.now() - t) / 500).toFixed(3), "ms"); }
  { const t = performance.now(); for (let i = 0; i < 200; i++) await hit(); console.log("whoami seq:", ((performance.now() - t) / 200).toFixed(3), "ms"); }
  for (let i = 0; i < 300; i++) await hit();
  texts.clear();
  const s = new Session(); s.connect(); await s.post("Profiler.enable"); await s.post("Profiler.start");
  const t0 = performance.now();
  const N = 2000;
  await Promise.all(Array.from({ length: 10 }, async () => { for (let i = 0; i < N / 10; i++) await hit(); }));
  const ms = performance.now() - t0;
  console.log([...texts].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v}\t${k}`).join("\n"));
  const { profile } = await s.post("Profiler.stop");
  writeFileSync(process.env.OUT ?? "/tmp/whoami.cpuprofile", JSON.stringify(profile));
  console.log(`${(N / (ms / 1000)).toFixed(0)} req/s`);
  await app.close();
  process.exit(0);
}
main();
