// The README's quickstart, run as written: its shell blocks in bash and its GraphQL script in node, against a
// fresh embedded server started the README's way. An edit to the README or to the API that breaks a pasted
// command fails here.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { killAll, ROOT, startService } from "./helpers/spawn";

const dir = mkdtempSync(path.join(tmpdir(), "q2c-readme-"));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
const quickstart = readme.slice(readme.indexOf("## Quickstart"), readme.indexOf("\n## ", readme.indexOf("## Quickstart") + 5));
const blocks = (lang: string) => [...quickstart.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);

test("the README keeps its two set-up commands and a quickstart with shell and GraphQL blocks", () => {
  expect(readme).toContain("```sh\nnpm install && npm start\n```");
  expect(readme).toContain("```sh\nnpm test\n```");
  expect(blocks("sh").length).toBeGreaterThanOrEqual(5);
  expect(blocks("js")).toHaveLength(1);
});

test("the quickstart's commands work against a fresh server, as pasted", async () => {
  const svc = await startService({ DATA_DIR: path.join(dir, "data"), PORT: "0", DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "error" });
  const port = Number(/listening on http:\/\/localhost:(\d+)/.exec(svc.output())![1]);
  const creds = JSON.parse(svc.output().split("\n").find((l) => l.startsWith("{"))!);
  const base = `http://localhost:${port}`;

  // The reader's two exports become this server's values; every other line runs as written.
  const [setup, ...steps] = blocks("sh");
  expect(setup).toMatch(/^export BASE=/m);
  expect(setup).toMatch(/^export KEY=/m);
  const script = [
    "set -euo pipefail",
    setup.replace(/^export BASE=.*$/m, `export BASE=${base}`).replace(/^export KEY=.*$/m, `export KEY=${creds.apiKey}`),
    ...steps,
    'echo "ORDER=$ORDER"; echo "PAYMENT=$PAYMENT"; echo "PAYMENT2=$PAYMENT2"',
  ].join("\n");
  const sh = spawnSync("bash", ["-c", script], { encoding: "utf8", timeout: 120_000 });
  if (sh.status !== 0) throw new Error(`quickstart shell blocks failed (${sh.status}):\n${sh.stderr}\n${sh.stdout}`);
  const out = sh.stdout.split("\n");
  const v = (name: string) => out.find((l) => l.startsWith(`${name}=`))!.slice(name.length + 1);

  // What the reader sees: line total 3998; totals with $5 shipping and 8.25% of (3998 + 500) = 371 tax.
  expect(out).toContain("3998");
  expect(out).toContain(JSON.stringify({ subtotal: 3998, discountTotal: 0, shippingTotal: 500, taxTotal: 371, total: 4869 }));
  expect(out.some((l) => l.startsWith(`${base}/checkout/`))).toBe(true);
  expect(out).toContain("captured");
  expect(out).toContain("500");

  const get = async (p: string) => ((await (await fetch(`${base}/api/v1/${p}`, { headers: { "x-api-key": creds.apiKey } })).json()) as any).data;
  const order = await get(`orders/${v("ORDER")}`);
  expect(order).toMatchObject({ total: 4869, paymentStatus: "partially_refunded", email: "buyer@example.com" });
  expect(order.shippingAddress).toEqual({ addressLine1: "1 Main St", addressLine2: null, city: "Austin", stateProvince: "TX", postalCode: "78701", countryCode: "US" });
  expect(out).toContain("Processing"); // displayStatus before the refund: paid in full, nothing shipped, no qualifier
  expect(await get(`payments/${v("PAYMENT")}`)).toMatchObject({ capturedAmount: 4869, refundedAmount: 500 });
  expect(await get(`payments/${v("PAYMENT2")}`)).toMatchObject({ status: "captured", capturedAmount: 2500 });

  // The GraphQL script, saved and run the way the README says.
  const file = path.join(dir, "quickstart.mjs");
  writeFileSync(file, blocks("js")[0]);
  const js = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000, env: { ...process.env, BASE: base, KEY: creds.apiKey } });
  if (js.status !== 0) throw new Error(`quickstart.mjs failed (${js.status}):\n${js.stderr}\n${js.stdout}`);
  expect(js.stdout).toContain("totals { subtotal: 3998, shippingTotal: 500, taxTotal: 371, total: 4869 }");
  expect(js.stdout).toContain(`hosted page ${base}/checkout/`);
  expect(js.stdout).toMatch(/order \{\s+status: 'processing',\s+paymentStatus: 'captured',\s+total: 4869,\s+shippingAddress: \{ city: 'Austin', stateProvince: 'TX' \}/);
  expect(js.stdout).toContain("refunded 500 500"); // the retry replayed the first answer
  const orders = (await get("orders?limit=5")) as any[];
  const gqlOrder = orders.find((o) => o.id !== v("ORDER") && o.total === 4869)!;
  expect((await get(`orders/${gqlOrder.id}`)).refundedAmount).toBe(500); // refunded once, not twice

  expect(await svc.stop()).toBe(0);
}, 180_000);

test("README and docs/ explain behaviour themselves: no pointers to specification files that are not in the repository", () => {
  const files = ["README.md", ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  const SPEC_POINTER = /(?<!docs\/)\b(platform|commerce|quotes|decisions)\.md\b|\.\.\/shared\/|\bthe spec(ification)?\b|\bspec's\b/i;
  const pointers = files.flatMap((f) =>
    readFileSync(path.join(ROOT, f), "utf8")
      .split("\n")
      .map((line, i) => ({ at: `${f}:${i + 1}`, line }))
      .filter(({ line }) => SPEC_POINTER.test(line.replace(/docs\/(commerce|platform)\.md/g, ""))),
  );
  expect(pointers).toEqual([]);
  expect(SPEC_POINTER.test("as platform.md part 2 says")).toBe(true);
});
